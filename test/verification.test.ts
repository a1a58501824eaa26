// Verification codes and password reset over HTTP, on both the /api and /api/v1 paths: codes
// are read from the outbox (`emails`) the way the delivery job would send them.
import t from 'tap';
import { startApp } from './helpers/harness.js';

let clock = new Date();
const minutes = (n: number) => new Date(clock.getTime() + n * 60_000);
const api = await startApp(t, { now: () => clock });
const nudges: string[] = [];
api.app.services.jobs.attach({ send: async (name) => void nudges.push(name) });

const PREFIXES = ['/api', '/api/v1'] as const;
let counter = 0;
const freshAddress = () => `person-${++counter}-${Date.now()}@example.test`;

/** The newest e-mail queued for `to`, with the 6-digit code in it. */
async function latestEmail(to: string) {
  const row = await api.db.selectFrom('emails').selectAll().where('to_address', '=', to).orderBy('id', 'desc').executeTakeFirstOrThrow();
  return { ...row, code: /\b(\d{6})\b/.exec(row.text_body)?.[1] ?? '' };
}
const emailCount = async (to: string) =>
  Number((await api.db.selectFrom('emails').select((eb) => eb.fn.countAll().as('n')).where('to_address', '=', to).executeTakeFirstOrThrow()).n);

const sendCode = (prefix: string, body: Record<string, unknown>) => api.request('POST', `${prefix}/send-verification-code`, { body });
const verify = (prefix: string, body: Record<string, unknown>) => api.request('POST', `${prefix}/verify-code`, { body });
const requestReset = (prefix: string, email: string) => api.request('POST', `${prefix}/password/reset-code`, { body: { email } });
const reset = (prefix: string, body: Record<string, unknown>) => api.request('POST', `${prefix}/password/reset`, { body });

/** A code that is not `code` (for wrong tries). */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

for (const prefix of PREFIXES) {
  t.test(`${prefix}: send-verification-code e-mails a hashed 6-digit code and nudges delivery`, async (t) => {
    clock = new Date();
    const contact = freshAddress();
    nudges.length = 0;
    const res = await sendCode(prefix, { contact, type: 'email' });
    t.equal(res.status, 200);
    t.same(res.body, { success: true, message: 'Verification code sent to your email.', data: null });

    const email = await latestEmail(contact);
    t.match(email.code, /^\d{6}$/);
    t.equal(email.kind, 'verification');
    t.equal(email.status, 'pending', 'queued, not sent inside the request');
    t.match(email.subject, /verification code/i);
    t.ok(email.html_body?.includes(email.code), 'the HTML carries the code too');
    t.same(nudges, ['deliver-emails'], 'the delivery job was nudged after commit');

    const stored = await api.db.selectFrom('verification_codes').selectAll().where('contact', '=', contact).executeTakeFirstOrThrow();
    t.equal(stored.purpose, 'registration', 'purpose defaults to registration');
    t.equal(stored.channel, 'email');
    t.notOk(stored.code_hash.includes(email.code), 'only a hash is stored');
    t.equal(stored.expires_at.toISOString(), minutes(5).toISOString(), 'lives 5 minutes');
  });

  t.test(`${prefix}: verify-code accepts the code and marks it verified`, async (t) => {
    clock = new Date();
    const contact = freshAddress();
    await sendCode(prefix, { contact, type: 'email' });
    const { code } = await latestEmail(contact);

    const res = await verify(prefix, { contact: contact.toUpperCase(), type: 'email', code });
    t.equal(res.status, 200, 'the contact compares case-insensitively');
    t.same(res.body, { success: true, message: 'Code verified successfully.', data: null });
    const stored = await api.db.selectFrom('verification_codes').selectAll().where('contact', '=', contact).executeTakeFirstOrThrow();
    t.equal(stored.verified_at?.toISOString(), clock.toISOString());

    clock = minutes(4);
    t.equal((await verify(prefix, { contact, type: 'email', code })).status, 200, 'stays valid until it expires');
    const otherPurpose = await verify(prefix, { contact, type: 'email', code, purpose: 'login' });
    t.equal(otherPurpose.status, 422, 'a code is bound to its purpose');
  });

  t.test(`${prefix}: a login code verifies the account's e-mail`, async (t) => {
    clock = new Date();
    const { email, user } = await api.newUser();
    t.equal(user.email_verified_at ?? null, null);
    t.equal((await sendCode(prefix, { contact: email, type: 'email', purpose: 'login' })).status, 200);
    const { code, user_id } = await latestEmail(email);
    t.equal(user_id, user.id, 'the e-mail belongs to the account');
    t.equal((await verify(prefix, { contact: email, type: 'email', purpose: 'login', code })).status, 200);
    const row = await api.db.selectFrom('users').select('email_verified_at').where('id', '=', user.id).executeTakeFirstOrThrow();
    t.equal(row.email_verified_at?.toISOString(), clock.toISOString());
  });

  t.test(`${prefix}: send-verification-code refuses bad input, registered addresses and phones`, async (t) => {
    const missing = await sendCode(prefix, {});
    t.equal(missing.status, 422);
    t.ok(missing.body.errors.contact && missing.body.errors.type, 'keyed by field');
    const badEnum = await sendCode(prefix, { contact: freshAddress(), type: 'pigeon', purpose: 'fun' });
    t.equal(badEnum.status, 422);
    t.ok(badEnum.body.errors.type && badEnum.body.errors.purpose);

    const notEmail = await sendCode(prefix, { contact: 'not-an-address', type: 'email' });
    t.equal(notEmail.status, 422);
    t.same(notEmail.body.errors, { contact: ['The contact must be a valid email address.'] });

    const { email } = await api.newUser();
    const registered = await sendCode(prefix, { contact: email.toUpperCase(), type: 'email' });
    t.equal(registered.status, 422);
    t.same(registered.body.errors, { contact: ['This email is already registered.'] });
    t.equal(await emailCount(email), 0, 'nothing was sent');

    const phone = `+1555${String(Date.now()).slice(-7)}`;
    await api.newUser({ phone });
    const phoneTaken = await sendCode(prefix, { contact: phone, type: 'phone' });
    t.same(phoneTaken.body.errors, { contact: ['This phone is already registered.'] });
    const sms = await sendCode(prefix, { contact: '+15550000000', type: 'phone' });
    t.equal(sms.status, 503, 'no SMS service is configured');
    t.equal(sms.body.success, false);
  });

  t.test(`${prefix}: verify-code: bad input, wrong, unknown and expired codes are 422 on code`, async (t) => {
    clock = new Date();
    const malformed = await verify(prefix, { contact: freshAddress(), type: 'email', code: '12345' });
    t.equal(malformed.status, 422);
    t.ok(malformed.body.errors.code, 'a code is 6 digits');
    const missing = await verify(prefix, { code: '123456' });
    t.ok(missing.body.errors.contact && missing.body.errors.type);

    const contact = freshAddress();
    const unknown = await verify(prefix, { contact, type: 'email', code: '123456' });
    t.equal(unknown.status, 422);
    t.same(unknown.body.errors, { code: ['Invalid or expired code.'] });

    await sendCode(prefix, { contact, type: 'email' });
    const { code } = await latestEmail(contact);
    const bad = await verify(prefix, { contact, type: 'email', code: wrong(code) });
    t.equal(bad.status, 422);
    t.same(bad.body.errors, { code: ['Invalid or expired code.'] });

    clock = minutes(5);
    const expired = await verify(prefix, { contact, type: 'email', code });
    t.equal(expired.status, 422, 'after 5 minutes the right code is refused');
    t.same(expired.body.errors, { code: ['Invalid or expired code.'] });
  });

  t.test(`${prefix}: after 5 wrong tries even the right code fails; a new code works`, async (t) => {
    clock = new Date();
    const contact = freshAddress();
    await sendCode(prefix, { contact, type: 'email' });
    const { code } = await latestEmail(contact);
    for (let i = 1; i <= 4; i += 1) {
      t.same((await verify(prefix, { contact, type: 'email', code: wrong(code) })).body.errors, { code: ['Invalid or expired code.'] });
    }
    const fifth = await verify(prefix, { contact, type: 'email', code: wrong(code) });
    t.same(fifth.body.errors, { code: ['Too many wrong attempts. Please request a new code.'] });
    const right = await verify(prefix, { contact, type: 'email', code });
    t.equal(right.status, 422, 'the code is dead');
    t.same(right.body.errors, { code: ['Too many wrong attempts. Please request a new code.'] });

    await sendCode(prefix, { contact, type: 'email' });
    const renewed = await latestEmail(contact);
    t.equal((await verify(prefix, { contact, type: 'email', code: renewed.code })).status, 200, 'a resend starts over');
  });

  t.test(`${prefix}: a resend replaces the live code`, async (t) => {
    clock = new Date();
    const contact = freshAddress();
    await sendCode(prefix, { contact, type: 'email' });
    const first = await latestEmail(contact);
    let second = first;
    while (second.code === first.code) {
      // one chance in a million that two codes are equal; then send again
      await sendCode(prefix, { contact, type: 'email' });
      second = await latestEmail(contact);
    }
    const rows = await api.db.selectFrom('verification_codes').selectAll().where('contact', '=', contact).execute();
    t.equal(rows.length, 1, 'one live code per contact and purpose');
    t.equal((await verify(prefix, { contact, type: 'email', code: first.code })).status, 422, 'the old code is void');
    t.equal((await verify(prefix, { contact, type: 'email', code: second.code })).status, 200);
  });

  t.test(`${prefix}: password reset-code e-mails known accounts only, with the same answer`, async (t) => {
    clock = new Date();
    const { email, user } = await api.newUser();
    nudges.length = 0;
    const known = await requestReset(prefix, email);
    t.equal(known.status, 200);
    const message = 'If this email matches a record, a password reset code has been sent.';
    t.same(known.body, { success: true, message, data: null });
    const sent = await latestEmail(email);
    t.match(sent.code, /^[1-9]\d{5}$/, 'reset codes are 100000-999999');
    t.equal(sent.subject, 'Password Reset Code');
    t.equal(sent.kind, 'password_reset');
    t.equal(sent.user_id, user.id);
    t.same(nudges, ['deliver-emails']);
    const stored = await api.db
      .selectFrom('verification_codes')
      .selectAll()
      .where('contact', '=', email)
      .where('purpose', '=', 'password_reset')
      .executeTakeFirstOrThrow();
    t.equal(stored.expires_at.toISOString(), minutes(15).toISOString(), 'lives 15 minutes');

    const stranger = freshAddress();
    const unknown = await requestReset(prefix, stranger);
    t.same(unknown.body, known.body, 'an unknown address gets the very same answer');
    t.equal(await emailCount(stranger), 0, 'and nothing is sent');
    t.equal((await api.db.selectFrom('verification_codes').select('id').where('contact', '=', stranger).execute()).length, 0);

    const bad = await requestReset(prefix, 'not-an-email');
    t.equal(bad.status, 422);
    t.ok(bad.body.errors.email);
  });

  t.test(`${prefix}: password reset sets the password, uses up the code and revokes every token`, async (t) => {
    clock = new Date();
    const { email, token, password } = await api.newUser();
    const second = await api.request('POST', '/api/login', { body: { email, password } });
    const otherToken = second.body.data.token as string;
    await requestReset(prefix, email);
    const { code } = await latestEmail(email);

    const newPassword = 'a brand new secret';
    const res = await reset(prefix, { email: email.toUpperCase(), code: Number(code), new_password: newPassword, new_password_confirmation: newPassword });
    t.equal(res.status, 200, 'the code may be a JSON integer; the e-mail any case');
    t.same(res.body, { success: true, message: 'Password has been reset successfully.', data: null });

    for (const old of [token, otherToken]) t.equal((await api.request('GET', '/api/v1/user', { token: old })).status, 401, 'every old token is revoked');
    t.equal((await api.request('POST', '/api/login', { body: { email, password } })).status, 401, 'the old password is gone');
    const login = await api.request('POST', '/api/v1/login', { body: { email, password: newPassword } });
    t.equal(login.status, 200, 'the new password works');
    t.equal((await api.request('GET', '/api/v1/user', { token: login.body.data.token })).status, 200);
    t.ok(login.body.data.user.email_verified_at, 'receiving the code verified the address');

    const notice = await latestEmail(email);
    t.equal(notice.subject, 'Your password was changed');
    t.equal(notice.kind, 'password_changed');

    const again = await reset(prefix, { email, code, new_password: 'yet another one', new_password_confirmation: 'yet another one' });
    t.equal(again.status, 422, 'a code is used once');
    t.same(again.body.errors, { code: ['Invalid or expired code.'] });
  });

  t.test(`${prefix}: password reset refuses bad input, unknown addresses, wrong and expired codes`, async (t) => {
    clock = new Date();
    const { email, password } = await api.newUser();
    await requestReset(prefix, email);
    const { code } = await latestEmail(email);
    const body = (extra: Record<string, unknown>) => ({ email, code, new_password: 'long enough 1', new_password_confirmation: 'long enough 1', ...extra });

    const empty = await reset(prefix, {});
    t.equal(empty.status, 422);
    t.ok(empty.body.errors.email && empty.body.errors.code && empty.body.errors.new_password && empty.body.errors.new_password_confirmation);
    const short = await reset(prefix, body({ new_password: 'short', new_password_confirmation: 'short' }));
    t.equal(short.status, 422);
    t.ok(short.body.errors.new_password, 'at least 8 characters');
    const mismatch = await reset(prefix, body({ new_password_confirmation: 'something else' }));
    t.same(mismatch.body.errors, { new_password: ['The new password field confirmation does not match.'] });
    const leadingZero = await reset(prefix, body({ code: '012345' }));
    t.equal(leadingZero.status, 422);
    t.ok(leadingZero.body.errors.code);

    const stranger = await reset(prefix, body({ email: freshAddress() }));
    t.equal(stranger.status, 422);
    t.same(stranger.body.errors, { code: ['Invalid or expired code.'] });
    const bad = await reset(prefix, body({ code: code === '999999' ? '100000' : String(Number(code) + 1) }));
    t.same(bad.body.errors, { code: ['Invalid or expired code.'] });

    clock = minutes(15);
    const expired = await reset(prefix, body({}));
    t.equal(expired.status, 422, 'after 15 minutes the code is refused');
    t.same(expired.body.errors, { code: ['Invalid or expired code.'] });
    t.equal((await api.request('POST', '/api/login', { body: { email, password } })).status, 200, 'the password is unchanged');
  });

  t.test(`${prefix}: after 5 wrong reset codes even the right one fails`, async (t) => {
    clock = new Date();
    const { email, password, token } = await api.newUser();
    await requestReset(prefix, email);
    const { code } = await latestEmail(email);
    const body = (c: string) => ({ email, code: c, new_password: 'long enough 2', new_password_confirmation: 'long enough 2' });
    const other = code === '999999' ? '100000' : String(Number(code) + 1);
    for (let i = 1; i <= 5; i += 1) t.equal((await reset(prefix, body(other))).status, 422);
    const right = await reset(prefix, body(code));
    t.same(right.body.errors, { code: ['Too many wrong attempts. Please request a new code.'] });
    t.equal((await api.request('POST', '/api/login', { body: { email, password } })).status, 200, 'the password is unchanged');
    t.equal((await api.request('GET', '/api/v1/user', { token })).status, 200, 'no token was revoked');
  });

  t.test(`${prefix}: resends do not renew the guesses: 15 wrong codes a day per address, then 429 until the day is over`, async (t) => {
    clock = new Date();
    const contact = freshAddress();
    // three codes, five wrong tries each: a resend starts a new code, not a new budget
    for (let round = 0; round < 3; round += 1) {
      await sendCode(prefix, { contact, type: 'email' });
      const { code } = await latestEmail(contact);
      for (let i = 0; i < 5; i += 1) t.equal((await verify(prefix, { contact, type: 'email', code: wrong(code) })).status, 422);
      clock = minutes(1);
    }
    await sendCode(prefix, { contact, type: 'email' });
    const { code } = await latestEmail(contact);
    const locked = await verify(prefix, { contact, type: 'email', code });
    t.equal(locked.status, 429, 'even the right code of a fresh resend is refused');
    t.equal(locked.body.message, 'Too many wrong codes for this address. Try again later.');
    const retryAfter = Number(locked.headers['retry-after']);
    t.ok(retryAfter > 23 * 3600 && retryAfter <= 24 * 3600, `Retry-After says when the window ends (${retryAfter} s)`);
    t.equal((await verify(prefix, { contact, type: 'email', code: wrong(code) })).status, 429, 'and guesses are not checked at all');

    clock = new Date(clock.getTime() + retryAfter * 1000);
    await sendCode(prefix, { contact, type: 'email' });
    const fresh = await latestEmail(contact);
    t.equal((await verify(prefix, { contact, type: 'email', code: fresh.code })).status, 200, 'once the window is over a code works again');
  });

  t.test(`${prefix}: the same window bounds password-reset guesses across resends`, async (t) => {
    clock = new Date();
    const { email, password } = await api.newUser();
    const body = (c: string) => ({ email, code: c, new_password: 'long enough 2', new_password_confirmation: 'long enough 2' });
    for (let round = 0; round < 3; round += 1) {
      await requestReset(prefix, email);
      const { code } = await latestEmail(email);
      const other = code === '999999' ? '100000' : String(Number(code) + 1);
      for (let i = 0; i < 5; i += 1) t.equal((await reset(prefix, body(other))).status, 422);
    }
    await requestReset(prefix, email);
    const { code } = await latestEmail(email);
    const locked = await reset(prefix, body(code));
    t.equal(locked.status, 429);
    t.ok(Number(locked.headers['retry-after']) > 0);
    t.equal((await api.request('POST', '/api/login', { body: { email, password } })).status, 200, 'the password is unchanged');
  });
}

t.test('the account routes are rate limited per IP and per contact', async (t) => {
  const limited = await startApp(t, { rateLimitAuth: 2 });
  const body = { contact: 'limited@example.test', type: 'email' };
  for (let i = 0; i < 2; i += 1) t.equal((await limited.request('POST', '/api/send-verification-code', { body })).status, 200);
  const refused = await limited.request('POST', '/api/v1/send-verification-code', { body });
  t.equal(refused.status, 429);
  t.equal(refused.body.success, false);
  t.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After header');

  const elsewhere = await limited.app.inject({ method: 'POST', url: '/api/verify-code', remoteAddress: '10.1.2.3', payload: { ...body, code: '123456' } });
  t.equal(elsewhere.statusCode, 429, 'the same contact from another IP is limited too');
  const reset = await limited.app.inject({ method: 'POST', url: '/api/password/reset-code', remoteAddress: '10.1.2.4', payload: { email: 'someone-else@example.test' } });
  t.equal(reset.statusCode, 200, 'another IP and address pass');
});
