// 019 code guess window: a code allows 5 wrong tries, but a resend starts a new code, so the
// tries per code alone would let a patient attacker guess without end. The row of a contact
// and purpose now also counts wrong tries per 24-hour window; a resend keeps that count.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('verification_codes')
    .addColumn('window_started_at', 'timestamptz')
    .addColumn('window_wrong_tries', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('verification_codes').dropColumn('window_started_at').dropColumn('window_wrong_tries').execute();
}
