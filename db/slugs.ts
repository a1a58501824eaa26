// Slugs unique among a user's records of one table (deleted ones included, so a slug never
// changes meaning): "family", then "family-2", "family-3"...
import { sql, type Kysely } from 'kysely';
import { slugify } from '../domain/slug.js';
import type { Database } from './schema.js';

export async function uniqueSlug(db: Kysely<Database>, table: 'wallets' | 'groups' | 'categories' | 'budgets', userId: number, name: string): Promise<string> {
  const base = slugify(name);
  const taken = await (db as Kysely<any>)
    .selectFrom(table)
    .select('slug')
    .where('user_id', '=', userId)
    .where((eb: any) => eb.or([eb('slug', '=', base), eb('slug', 'like', sql`${`${base}-`} || '%'`)]))
    .execute();
  const used = new Set(taken.map((row: { slug: string }) => row.slug));
  if (!used.has(base)) return base;
  let n = 2;
  while (used.has(`${base}-${n}`)) n++;
  return `${base}-${n}`;
}
