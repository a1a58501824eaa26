// What analysis matches an import's rows against: the user's records (names of wallets,
// parties and categories) and, per row, the transactions it may repeat.
import { sql, type Kysely } from 'kysely';
import type { ExistingTransaction, UserRecords } from '../domain/statements/matching.js';
import { dayIn } from '../domain/stats-periods.js';
import { startOfDay, startOfNextDay } from '../domain/time-zone.js';
import type { Database } from './schema.js';

/** The user's live wallets, parties and categories, for matching names. */
export async function recordsOf(db: Kysely<Database>, userId: number): Promise<UserRecords> {
  const [wallets, parties, categories] = await Promise.all([
    db.selectFrom('wallets').select(['id', 'name', 'currency', 'description']).where('user_id', '=', userId).where('deleted_at', 'is', null).orderBy('id').execute(),
    db.selectFrom('parties').select(['id', 'name']).where('user_id', '=', userId).where('deleted_at', 'is', null).orderBy('id').execute(),
    db.selectFrom('categories').select(['id', 'name', 'type']).where('user_id', '=', userId).where('deleted_at', 'is', null).orderBy('id').execute(),
  ]);
  return { wallets, parties, categories };
}

/**
 * Per draft (by position), the user's live transactions of the same amount within `nearDays`
 * days of its date (in `timeZone`), in time order: the only ones it can repeat. One query for
 * all the drafts (a batch of a streamed analysis), answered by the amount index (migration 020).
 * `throughId`: only transactions up to this id (the ledger before an import that is running).
 */
export async function duplicateCandidates(
  db: Kysely<Database>,
  userId: number,
  drafts: Array<{ amount: string | null; date: string | null }>,
  nearDays: number,
  timeZone: string,
  throughId?: number,
): Promise<ExistingTransaction[][]> {
  const found: ExistingTransaction[][] = drafts.map(() => []);
  // ISO texts made once per day: pg's own Date formatting cost ~2 ms a batch
  const days = new Map<string, { from: string; to: string }>();
  const positions: number[] = [];
  const amounts: string[] = [];
  const froms: string[] = [];
  const tos: string[] = [];
  drafts.forEach((draft, at) => {
    if (draft.amount === null || draft.date === null || !/^\d{4}-\d{2}-\d{2}$/.test(draft.date)) return;
    let window = days.get(draft.date);
    if (!window) {
      const shift = (by: number) => new Date(Date.parse(`${draft.date}T00:00:00Z`) + by * 86_400_000).toISOString().slice(0, 10);
      days.set(draft.date, (window = { from: startOfDay(shift(-nearDays), timeZone).toISOString(), to: startOfNextDay(shift(nearDays), timeZone).toISOString() }));
    }
    positions.push(at);
    amounts.push(draft.amount);
    froms.push(window.from);
    tos.push(window.to);
  });
  if (positions.length === 0) return found;
  const rows = await sql<{ at: number; id: number; wallet_id: number; type: 'income' | 'expense'; amount: string; description: string | null; datetime: Date }>`
    select d.at, t.id, t.wallet_id, t.type, t.amount, t.description, t.datetime
      from unnest(${positions}::int[], ${amounts}::numeric[], ${froms}::timestamptz[], ${tos}::timestamptz[]) as d(at, amount, from_at, to_at)
      join transactions t
        on t.user_id = ${userId} and t.deleted_at is null and t.amount = d.amount and t.datetime >= d.from_at and t.datetime < d.to_at
           ${throughId === undefined ? sql`` : sql`and t.id <= ${throughId}`}
     order by d.at, t.datetime, t.id`.execute(db);
  for (const row of rows.rows) {
    found[row.at].push({ id: row.id, walletId: row.wallet_id, type: row.type, amount: row.amount, description: row.description, date: dayIn(row.datetime, timeZone) });
  }
  return found;
}
