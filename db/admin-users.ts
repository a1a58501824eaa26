// Users as the admin area sees them: every account (not scoped to the caller), with the
// avatar each one shows, and one account's record counts.
import { sql, type Kysely } from 'kysely';
import { listPage, type PageMeta } from './feed.js';
import type { Database } from './schema.js';
import { USER_RECORD_COLUMNS, type UserRecord } from './users.js';

export type AdminUserRow = UserRecord & { avatar_url: string | null };


/** A live string configuration entry of the user, as text (null when unset or not text). */
function configurationText(key: string) {
  return sql<string | null>`(select c.value #>> '{}' from configurations c
    where c.user_id = users.id and c.key = ${key} and c.deleted_at is null and jsonb_typeof(c.value) = 'string')`;
}

function selectUsers(db: Kysely<Database>) {
  return db.selectFrom('users').select([...USER_RECORD_COLUMNS, configurationText('avatar').as('avatar_url')]);
}

/** `%`, `_` and `\` in a search are literal characters. */
function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function adminUserPage(
  db: Kysely<Database>,
  options: { page: number; limit: number; search?: string; now: Date },
): Promise<{ rows: AdminUserRow[]; meta: PageMeta }> {
  let query = selectUsers(db);
  if (options.search) {
    const pattern = containsPattern(options.search);
    query = query.where((eb) =>
      eb.or([
        eb('users.first_name', 'ilike', pattern),
        eb('users.last_name', 'ilike', pattern),
        eb('users.email', 'ilike', pattern),
        eb('users.username', 'ilike', pattern),
      ]),
    );
  }
  return listPage(query.orderBy('users.id', 'asc'), options);
}

export function findAdminUser(db: Kysely<Database>, id: number): Promise<AdminUserRow | undefined> {
  return selectUsers(db).where('users.id', '=', id).executeTakeFirst();
}

/**
 * The user's live records per table, locale preferences and latest transaction date, in one query;
 * undefined when the account was closed since it was found (a concurrent delete).
 */
export async function adminUserDetails(db: Kysely<Database>, userId: number) {
  const live = (table: 'transactions' | 'wallets' | 'categories' | 'parties' | 'groups' | 'budgets') =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null);
  const row = await db
    .selectFrom('users')
    .select((eb) => [
      live('transactions').as('transactions'),
      live('wallets').as('wallets'),
      live('categories').as('categories'),
      live('parties').as('parties'),
      live('groups').as('groups'),
      live('budgets').as('budgets'),
      configurationText('country').as('country'),
      configurationText('default-lang').as('language'),
      configurationText('default-currency').as('currency'),
      eb
        .selectFrom('transactions')
        .select((t) => t.fn.max('datetime').as('latest'))
        .where('user_id', '=', userId)
        .where('deleted_at', 'is', null)
        .as('last_transaction_at'),
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    counts: {
      transactions: Number(row.transactions),
      wallets: Number(row.wallets),
      categories: Number(row.categories),
      parties: Number(row.parties),
      groups: Number(row.groups),
      budgets: Number(row.budgets),
    },
    preferences: { country: row.country, language: row.language, currency: row.currency },
    lastTransactionAt: (row.last_transaction_at as Date | null) ?? null,
  };
}
