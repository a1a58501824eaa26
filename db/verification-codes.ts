// The verification_codes table: one live code per (lower(contact), channel, purpose). Sending
// replaces the row's code, expiry and per-code counter, but keeps the count of wrong tries in
// the current guess window; checking locks the row, so concurrent checks of one code count
// every wrong try and a reset code is used up once.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { codeMatches, guessWindowEnd, MAX_WRONG_TRIES, MAX_WRONG_TRIES_PER_WINDOW, type CodeBinding } from '../domain/one-time-codes.js';

export interface NewCode extends CodeBinding {
  userId: number | null;
  codeHash: string;
  expiresAt: Date;
}

/** Stores a new code for the binding, replacing (and so voiding) any earlier one. */
export async function replaceCode(db: Kysely<Database>, code: NewCode, now: Date): Promise<void> {
  const fresh = {
    user_id: code.userId,
    code_hash: code.codeHash,
    attempts: 0,
    expires_at: code.expiresAt,
    verified_at: null,
    consumed_at: null,
    updated_at: now,
  };
  await db
    .insertInto('verification_codes')
    .values({ ...fresh, contact: code.contact, channel: code.channel, purpose: code.purpose, created_at: now })
    // the unique index is on (lower(contact), channel, purpose)
    .onConflict((oc) => oc.expression(sql`(lower(contact)), channel, purpose`).doUpdateSet({ ...fresh, contact: code.contact }))
    .execute();
}

/**
 * - `ok`: the code matched (and is now marked verified, or consumed).
 * - `invalid`: no live code, expired, used up, or a wrong code with tries left.
 * - `exhausted`: wrong too often; the code is void until a new one is sent.
 * - `locked`: the contact used up its wrong tries of the window; nothing is checked until `until`.
 */
export type CodeCheck = { outcome: 'ok'; userId: number | null } | { outcome: 'invalid' | 'exhausted' } | { outcome: 'locked'; until: Date };

/**
 * Checks `code` against the live code of the binding, inside the caller's transaction (the row
 * stays locked until it commits). A wrong try is counted even when the caller then fails the
 * request, so the caller must commit before answering 422.
 */
export async function checkCode(
  trx: Kysely<Database>,
  key: string,
  binding: CodeBinding,
  code: string,
  now: Date,
  use: 'verify' | 'consume',
): Promise<CodeCheck> {
  const row = await trx
    .selectFrom('verification_codes')
    .select(['id', 'user_id', 'code_hash', 'attempts', 'expires_at', 'consumed_at', 'window_started_at', 'window_wrong_tries'])
    .where(sql<string>`lower(contact)`, '=', binding.contact.trim().toLowerCase())
    .where('channel', '=', binding.channel)
    .where('purpose', '=', binding.purpose)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return { outcome: 'invalid' };
  const windowOpen = row.window_started_at !== null && guessWindowEnd(row.window_started_at) > now;
  if (windowOpen && row.window_wrong_tries >= MAX_WRONG_TRIES_PER_WINDOW) return { outcome: 'locked', until: guessWindowEnd(row.window_started_at!) };
  if (row.consumed_at !== null || row.expires_at <= now) return { outcome: 'invalid' };
  if (row.attempts >= MAX_WRONG_TRIES) return { outcome: 'exhausted' };

  if (!codeMatches(key, code, binding, row.code_hash)) {
    const attempts = row.attempts + 1;
    const window = windowOpen ? { window_wrong_tries: row.window_wrong_tries + 1 } : { window_started_at: now, window_wrong_tries: 1 };
    await trx.updateTable('verification_codes').set({ attempts, ...window, updated_at: now }).where('id', '=', row.id).execute();
    return { outcome: attempts >= MAX_WRONG_TRIES ? 'exhausted' : 'invalid' };
  }
  await trx
    .updateTable('verification_codes')
    .set(use === 'consume' ? { consumed_at: now, updated_at: now } : { verified_at: now, updated_at: now })
    .where('id', '=', row.id)
    .execute();
  return { outcome: 'ok', userId: row.user_id };
}

/** Marks the account with this e-mail (if any) as verified, keeping an earlier verification time. */
export async function markEmailVerified(trx: Kysely<Database>, email: string, now: Date): Promise<void> {
  await trx
    .updateTable('users')
    .set({ email_verified_at: now, updated_at: now })
    .where(sql<string>`lower(email)`, '=', email.trim().toLowerCase())
    .where('email_verified_at', 'is', null)
    .execute();
}

/** How long a verified registration code vouches for the address it was sent to. */
const REGISTRATION_PROOF_MS = 60 * 60_000;

/**
 * Uses up a registration code this address verified within the last hour, before the account
 * existed (the web client's sign-up: send-verification-code, verify-code, then register);
 * true when there was one. An older or already used verification proves nothing about who
 * registers now.
 */
export async function consumeRegistrationProof(db: Kysely<Database>, email: string, now: Date): Promise<boolean> {
  const used = await db
    .updateTable('verification_codes')
    .set({ consumed_at: now, updated_at: now })
    .where(sql<string>`lower(contact)`, '=', email.trim().toLowerCase())
    .where('channel', '=', 'email')
    .where('purpose', '=', 'registration')
    .where('verified_at', '>', new Date(now.getTime() - REGISTRATION_PROOF_MS))
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(used.numUpdatedRows) > 0;
}
