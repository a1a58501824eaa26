// Verification codes and password reset (tag Authentication). The same handlers answer the
// public `/api/...` routes and their `/api/v1/...` aliases. Codes are e-mailed through the
// outbox: queued in the request's transaction, delivered by the deliver-emails job after the
// nudge. The per-IP and per-contact rate limits come from server/rate-limits.ts.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { revokeAllTokens } from '../db/tokens.js';
import { findUserForLogin } from '../db/users.js';
import { checkCode, markEmailVerified, replaceCode, type CodeCheck } from '../db/verification-codes.js';
import { passwordChangedEmail, passwordResetCodeEmail, verificationCodeEmail, type RenderedEmail } from '../domain/email-templates.js';
import { codeExpiry, codeLifetimeMinutes, generateCode, hashCode, type CodeBinding } from '../domain/one-time-codes.js';
import { hashPassword } from '../domain/passwords.js';
import { done } from '../server/envelope.js';
import { HttpError, invalidField } from '../server/errors.js';
import type { HandlerContext, Handlers } from '../server/handler-types.js';
import { DELIVER_EMAILS_JOB } from '../db/job-names.js';
import { queueEmail } from '../db/email-outbox.js';
import type { AppServices } from '../server/services.js';

const INVALID_CODE = 'Invalid or expired code.';
const EMAIL_ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:".]+$/;

async function sendVerificationCode({ body, db, services }: HandlerContext<'sendVerificationCode' | 'sendVerificationCodeV1'>) {
  const contact = body.contact.trim();
  const purpose = body.purpose ?? 'registration';
  if (body.type === 'email' && !EMAIL_ADDRESS.test(contact)) throw invalidField('contact', 'The contact must be a valid email address.');
  const owner = await findUserForLogin(db, body.type === 'email' ? { email: contact } : { phone: contact });
  if (purpose === 'registration' && owner) throw invalidField('contact', `This ${body.type} is already registered.`);
  if (body.type === 'phone') throw new HttpError(503, 'Phone codes need an SMS service, and none is configured.');

  const binding: CodeBinding = { contact, channel: 'email', purpose };
  await issueCode(db, services, binding, owner?.id ?? null, 'verification', verificationCodeEmail);
  return done('Verification code sent to your email.');
}

async function verifyCode({ body, db, services }: HandlerContext<'verifyCode' | 'verifyCodeV1'>) {
  const now = services.now();
  const binding: CodeBinding = { contact: body.contact.trim(), channel: body.type, purpose: body.purpose ?? 'registration' };
  const appKey = await services.appKey();
  const check = await db.transaction().execute(async (trx) => {
    const result = await checkCode(trx, appKey, binding, body.code, now, 'verify');
    // The code reached this address, so an account with it has a verified e-mail.
    if (result.outcome === 'ok' && binding.channel === 'email') await markEmailVerified(trx, binding.contact, now);
    return result;
  });
  failUnlessOk(check, now); // after commit: a wrong try stays counted
  return done('Code verified successfully.');
}

async function sendPasswordResetCode({ body, db, services }: HandlerContext<'sendPasswordResetCode' | 'sendPasswordResetCodeV1'>) {
  const user = await findUserForLogin(db, { email: body.email.trim() });
  // Unknown addresses get the same answer and nothing is stored or sent: no account enumeration.
  if (user) {
    const binding: CodeBinding = { contact: user.email, channel: 'email', purpose: 'password_reset' };
    await issueCode(db, services, binding, user.id, 'password_reset', passwordResetCodeEmail);
  }
  return done('If this email matches a record, a password reset code has been sent.');
}

async function resetPassword({ body, db, services }: HandlerContext<'resetPassword' | 'resetPasswordV1'>) {
  if (body.new_password !== body.new_password_confirmation) {
    throw invalidField('new_password', 'The new password field confirmation does not match.');
  }
  // Hashed before the lookup, so an unknown address costs the same time as a known one.
  const passwordHash = await hashPassword(body.new_password, services.config.passwordHashing);
  const user = await findUserForLogin(db, { email: body.email.trim() });
  if (!user) throw invalidField('code', INVALID_CODE);

  const now = services.now();
  const binding: CodeBinding = { contact: user.email, channel: 'email', purpose: 'password_reset' };
  const appKey = await services.appKey();
  const check = await db.transaction().execute(async (trx) => {
    const result = await checkCode(trx, appKey, binding, String(body.code), now, 'consume');
    if (result.outcome !== 'ok') return result;
    await trx
      .updateTable('users')
      .set((eb) => ({
        password_hash: passwordHash,
        // receiving the code proves the address, as verifying it would
        email_verified_at: eb.fn.coalesce('email_verified_at', eb.val(now)),
        updated_at: now,
      }))
      .where('id', '=', user.id)
      .execute();
    await revokeAllTokens(trx, user.id, now);
    await queueEmail(trx, { to: user.email, ...passwordChangedEmail(), kind: 'password_changed', userId: user.id });
    return result;
  });
  failUnlessOk(check, now);
  await services.jobs.send(DELIVER_EMAILS_JOB);
  return done('Password has been reset successfully.');
}

/**
 * Stores a fresh code for the binding (voiding the previous one) and queues its e-mail in one
 * transaction, then nudges delivery.
 */
async function issueCode(
  db: Kysely<Database>,
  services: AppServices,
  binding: CodeBinding,
  userId: number | null,
  kind: string,
  render: (code: string, minutes: number) => RenderedEmail,
): Promise<void> {
  const now = services.now();
  const code = generateCode(binding.purpose);
  const codeHash = hashCode(await services.appKey(), code, binding);
  await db.transaction().execute(async (trx) => {
    await replaceCode(trx, { ...binding, userId, codeHash, expiresAt: codeExpiry(binding.purpose, now) }, now);
    await queueEmail(trx, { to: binding.contact, ...render(code, codeLifetimeMinutes(binding.purpose)), kind, userId });
  });
  await services.jobs.send(DELIVER_EMAILS_JOB);
}

function failUnlessOk(check: CodeCheck, now: Date): void {
  if (check.outcome === 'locked') {
    const seconds = Math.max(1, Math.ceil((check.until.getTime() - now.getTime()) / 1000));
    throw new HttpError(429, 'Too many wrong codes for this address. Try again later.', undefined, { 'retry-after': String(seconds) });
  }
  if (check.outcome === 'exhausted') throw invalidField('code', 'Too many wrong attempts. Please request a new code.');
  if (check.outcome === 'invalid') throw invalidField('code', INVALID_CODE);
}

export const verificationHandlers = {
  sendVerificationCode,
  sendVerificationCodeV1: sendVerificationCode,
  verifyCode,
  verifyCodeV1: verifyCode,
  sendPasswordResetCode,
  sendPasswordResetCodeV1: sendPasswordResetCode,
  resetPassword,
  resetPasswordV1: resetPassword,
} satisfies Partial<Handlers>;
