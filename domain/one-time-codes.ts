// One-time codes (e-mail verification, password reset): how they are made, how long they live,
// how they are stored and checked. Pure logic: db/verification-codes.ts keeps the rows.
//
// Codes are stored as HMAC-SHA256 under the app key, bound to the contact and purpose. Six
// digits are a small space, so no hash would resist a thief holding both the table and the
// key; what protects a code is its short life and the 5-try limit. Without the key a stolen
// table reveals nothing, and a fast keyed MAC keeps the check cheap under the rate limits.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

export type CodePurpose = 'registration' | 'login' | 'password_reset';

/** Wrong tries a code allows; the next check after that many fails whatever is entered. */
export const MAX_WRONG_TRIES = 5;

/**
 * Wrong tries a contact and purpose allow per window, whatever number of codes were sent: a
 * resend starts a new code, not a new budget of guesses. 15 a day is three codes' worth; a
 * guesser then wins with odds of 15 in a million a day, and is refused (429) until the window ends.
 */
export const MAX_WRONG_TRIES_PER_WINDOW = 15;
export const GUESS_WINDOW_MS = 24 * 60 * 60_000;

/** When the guess window that started at `startedAt` ends. */
export function guessWindowEnd(startedAt: Date): Date {
  return new Date(startedAt.getTime() + GUESS_WINDOW_MS);
}

/** Minutes a code lives: 15 for a password reset, 5 for the others. */
export function codeLifetimeMinutes(purpose: CodePurpose): number {
  return purpose === 'password_reset' ? 15 : 5;
}

export function codeExpiry(purpose: CodePurpose, now: Date): Date {
  return new Date(now.getTime() + codeLifetimeMinutes(purpose) * 60_000);
}

/**
 * A fresh 6-digit code from the CSPRNG. Verification codes may start with 0 ("004217");
 * reset codes are 100000-999999, since clients send them as JSON integers.
 */
export function generateCode(purpose: CodePurpose): string {
  return purpose === 'password_reset' ? String(randomInt(100_000, 1_000_000)) : String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** What a code is bound to: the same digits for another contact or purpose do not match. */
export interface CodeBinding {
  contact: string;
  channel: 'email' | 'phone';
  purpose: CodePurpose;
}

export function hashCode(key: string, code: string, binding: CodeBinding): string {
  return createHmac('sha256', key)
    .update(`${binding.channel}\n${binding.purpose}\n${binding.contact.trim().toLowerCase()}\n${code}`)
    .digest('base64url');
}

/** Constant-time comparison of `code` with the stored hash. */
export function codeMatches(key: string, code: string, binding: CodeBinding, storedHash: string): boolean {
  const expected = Buffer.from(storedHash);
  const actual = Buffer.from(hashCode(key, code, binding));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
