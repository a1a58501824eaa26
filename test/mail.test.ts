// The e-mail path: the outbox table drained by the deliver-emails job through the mail
// adapter, against a real SMTP server on a loopback port, and the .eml outbox default.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { deliverEmailsJob, deliverPendingEmails, MAX_ATTEMPTS, transportFor } from '../jobs/deliver-emails.js';
import { loadConfig } from '../server/config.js';
import { grantAdmin } from '../scripts/admin.js';
import { createMailTransport } from '../server/mail-transport.js';
import { queueEmail } from '../db/email-outbox.js';
import { startApp, type TestApp } from './helpers/harness.js';
import { parseMessage, startSmtpServer } from './helpers/smtp.js';
import { multipart, PNG } from './helpers/transaction-fixtures.js';

const smtp = await startSmtpServer();
t.teardown(() => smtp.close());

let clock = new Date('2026-05-01T10:00:00Z');
const api = await startApp(t, { now: () => clock, smtpUrl: smtp.url, mailFrom: 'Finance <no-reply@finance.test>' });
t.teardown(() => transportFor(api.config).close());

/** One run of the job as the queue would run it. */
const runJob = (app: TestApp) => deliverEmailsJob.run({ db: app.db, services: app.app.services, log: app.app.log }, {});
const emailRow = (id: number) => api.db.selectFrom('emails').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const received = (to: string) => smtp.messages.filter((m) => m.envelope.to.includes(to));

function queue(app: TestApp, to: string, extra: { outreachSendId?: number } = {}) {
  return queueEmail(app.db, {
    to,
    subject: 'Quarterly update',
    text: 'Plain words & numbers: 42\n',
    html: '<p>Plain words &amp; numbers: <b>42</b></p>',
    kind: 'notification',
    ...extra,
  });
}

t.test('a queued e-mail is sent over SMTP with its sender, subject, text and HTML', async (t) => {
  const id = await queue(api, 'ada@example.test');
  await runJob(api);

  const [message] = received('ada@example.test');
  t.ok(message, 'the SMTP server received it');
  t.equal(message.user, 'mailer', 'authenticated with the credentials of SMTP_URL');
  t.equal(message.envelope.from, 'no-reply@finance.test');
  t.equal(message.from, 'Finance <no-reply@finance.test>');
  t.equal(message.to, 'ada@example.test');
  t.equal(message.subject, 'Quarterly update');
  t.equal(message.text, 'Plain words & numbers: 42\n');
  t.equal(message.html, '<p>Plain words &amp; numbers: <b>42</b></p>');
  t.same(message.attachments, [], 'an ordinary message has no attachment');

  const row = await emailRow(id);
  t.equal(row.status, 'sent');
  t.equal(row.attempts, 1);
  t.equal(row.sent_at?.toISOString(), clock.toISOString());
  t.equal(row.message_id, message.headers['message-id'], 'the Message-ID is recorded');
  t.equal(row.last_error, null);
  t.equal(row.text_body, 'Plain words & numbers: 42\n', 'an ordinary message keeps its body');

  await runJob(api);
  t.equal(received('ada@example.test').length, 1, 'running the job again sends nothing twice');
});

t.test('a verification code requested over HTTP arrives by SMTP', async (t) => {
  const res = await api.request('POST', '/api/send-verification-code', { body: { contact: 'grace@example.test', type: 'email' } });
  t.equal(res.status, 200);
  await runJob(api);
  const [message] = received('grace@example.test');
  t.match(message.subject, /verification code/i);
  const code = /\b(\d{6})\b/.exec(message.text)?.[1];
  t.ok(code, 'the text carries the code');
  t.match(message.html, new RegExp(`>${code}<`), 'and so does the HTML');
  t.equal(
    (await api.request('POST', '/api/verify-code', { body: { contact: 'grace@example.test', type: 'email', code } })).status,
    200,
    'the delivered code verifies',
  );
  const row = await api.db.selectFrom('emails').selectAll().where('to_address', '=', 'grace@example.test').executeTakeFirstOrThrow();
  t.equal(row.status, 'sent');
  t.notOk(row.text_body.includes(code!) || row.html_body?.includes(code!), 'the outbox forgets the code once it is delivered');
});

t.test('a permanent refusal fails the e-mail at once; the outreach recipient follows', async (t) => {
  smtp.refuseRecipient((address) => address === 'gone@example.test', 550, 'No such user here');
  const { user } = await api.newUser();
  const outreach = await api.db
    .insertInto('outreach_messages')
    .values({ subject: 'News', body: 'Hello', audience: 'all' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const sends = await api.db
    .insertInto('outreach_sends')
    .values([
      { outreach_id: outreach.id, user_id: user.id, email: 'gone@example.test' },
      { outreach_id: outreach.id, user_id: (await api.newUser()).user.id, email: 'here@example.test' },
    ])
    .returning('id')
    .execute();
  const refused = await queue(api, 'gone@example.test', { outreachSendId: sends[0].id });
  const accepted = await queue(api, 'here@example.test', { outreachSendId: sends[1].id });

  await runJob(api);

  const row = await emailRow(refused);
  t.equal(row.status, 'failed', 'a 5xx answer is not retried');
  t.equal(row.attempts, 1);
  t.match(row.last_error, /550|No such user/);
  t.equal(row.sent_at, null);
  const [failedSend, sentSend] = await Promise.all(
    sends.map((s) => api.db.selectFrom('outreach_sends').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow()),
  );
  t.equal(failedSend.status, 'failed');
  t.match(failedSend.error, /No such user/);
  t.equal((await emailRow(accepted)).status, 'sent');
  t.equal(sentSend.status, 'sent');
  t.equal(sentSend.sent_at?.toISOString(), clock.toISOString());
  t.equal(sentSend.error, null);
});

t.test('an unreachable server is retried later, then given up after 5 attempts', async (t) => {
  clock = new Date('2026-05-02T10:00:00Z');
  // Nothing listens on the port of a closed server.
  const closed = await startSmtpServer();
  await closed.close();
  const unreachable = createMailTransport({ smtpUrl: closed.url, mailFrom: api.config.mailFrom, dataDir: api.config.dataDir });
  t.teardown(() => unreachable.close());
  const id = await queue(api, 'later@example.test');
  const deliverOnly = () => deliverPendingEmails(api.db, unreachable, api.app.services.storage, () => clock);

  t.same(await deliverOnly(), { sent: 0, failed: 0, retrying: 1 });
  let row = await emailRow(id);
  t.equal(row.status, 'pending');
  t.equal(row.attempts, 1);
  t.match(row.last_error, /ECONNREFUSED|connect/i);

  t.same(await deliverOnly(), { sent: 0, failed: 0, retrying: 0 }, 'not retried straight away');
  for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt += 1) {
    clock = new Date(clock.getTime() + 5 * 60_000);
    await deliverOnly();
    row = await emailRow(id);
    t.equal(row.attempts, attempt);
  }
  t.equal(row.status, 'failed', `given up after ${MAX_ATTEMPTS} attempts`);
  clock = new Date(clock.getTime() + 60 * 60_000);
  t.same(await deliverOnly(), { sent: 0, failed: 0, retrying: 0 }, 'a failed e-mail is never tried again');

  // A reachable server later does not resurrect it either.
  await runJob(api);
  t.equal(received('later@example.test').length, 0);
});

t.test('two workers draining the outbox at once send every e-mail exactly once', async (t) => {
  clock = new Date('2026-05-03T10:00:00Z');
  const addresses = Array.from({ length: 45 }, (_, i) => `bulk-${i}@example.test`);
  const ids: number[] = [];
  for (const address of addresses) ids.push(await queue(api, address));
  const second = createMailTransport(api.config); // another process has its own connection
  t.teardown(() => second.close());

  const [a, b] = await Promise.all([
    deliverPendingEmails(api.db, transportFor(api.config), api.app.services.storage, () => clock),
    deliverPendingEmails(api.db, second, api.app.services.storage, () => clock),
  ]);
  t.equal(a.sent + b.sent, addresses.length, 'between them every e-mail went once');
  t.comment(`worker a sent ${a.sent}, worker b sent ${b.sent}`);
  for (const address of addresses) t.equal(received(address).length, 1, address);
  const rows = await api.db.selectFrom('emails').select(['status', 'attempts']).where('id', 'in', ids).execute();
  t.ok(rows.every((r) => r.status === 'sent' && r.attempts === 1), 'each claimed once');

  t.same(await deliverPendingEmails(api.db, second, api.app.services.storage, () => clock), { sent: 0, failed: 0, retrying: 0 });
});

t.test('a worker slower than the retry delay never sends a row another worker took over', async (t) => {
  clock = new Date('2026-05-04T10:00:00Z');
  const ids = [await queue(api, 'slow-1@example.test'), await queue(api, 'slow-2@example.test')];
  const sends: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let firstStarted!: () => void;
  const started = new Promise<void>((resolve) => (firstStarted = resolve));
  const slow = {
    kind: 'smtp' as const,
    async send(message: { to: string }) {
      sends.push(message.to);
      if (sends.length === 1) {
        firstStarted();
        await released; // a stuck server: this send outlasts the retry delay
      }
      return { messageId: `<${sends.length}@slow>` };
    },
    close() {},
  };
  const quick = { kind: 'smtp' as const, async send(message: { to: string }) { sends.push(message.to); return { messageId: '<quick>' }; }, close() {} };

  const slowRun = deliverPendingEmails(api.db, slow, api.app.services.storage, () => clock);
  await started;
  clock = new Date(clock.getTime() + 6 * 60_000); // worker 1 still sending its first row
  await deliverPendingEmails(api.db, quick, api.app.services.storage, () => clock);
  release();
  await slowRun;
  // slow-1 was in flight when it was taken over (the SMTP timeouts keep a real send far below
  // the retry delay); slow-2 had not been started, and must not go out twice.
  t.equal(sends.filter((address) => address === 'slow-2@example.test').length, 1, 'the waiting row is sent once');
  const rows = await api.db.selectFrom('emails').select('status').where('id', 'in', ids).execute();
  t.ok(rows.every((row) => row.status === 'sent'));
});

t.test("an outreach e-mail arrives with its campaign's attachment", async (t) => {
  const admin = await api.newUser();
  const granted = await grantAdmin(api.db, admin.email);
  t.equal(granted.exitCode, 0, granted.output);
  const form = multipart(
    [
      ['subject', 'With a file'],
      ['body', 'See attached'],
      ['audience', 'test'],
    ],
    [{ field: 'files[]', filename: 'chart.png', contentType: 'image/png', data: PNG }],
  );
  const sent = await api.request('POST', '/api/v1/admin/outreach/send', { token: admin.token, payload: form.payload, headers: form.headers });
  t.equal(sent.status, 200);

  await runJob(api);

  const [message] = received(admin.email);
  t.ok(message, 'the SMTP server received it');
  t.equal(message.subject, 'With a file');
  t.match(message.text, 'See attached', 'the body is still there');
  t.equal(message.attachments.length, 1);
  const [attachment] = message.attachments;
  t.equal(attachment.filename, 'chart.png');
  t.equal(attachment.contentType, 'image/png');
  t.same(attachment.content, PNG, 'the stored bytes, unchanged');
  const send = await api.db.selectFrom('outreach_sends').selectAll().where('outreach_id', '=', sent.body.data.outreach.id).executeTakeFirstOrThrow();
  t.equal(send.status, 'sent');
});

t.test('an outreach e-mail whose attachment cannot be read is not sent without it', async (t) => {
  const admin = await api.newUser();
  t.equal((await grantAdmin(api.db, admin.email)).exitCode, 0);
  const form = multipart(
    [
      ['subject', 'Missing file'],
      ['body', 'B'],
      ['audience', 'test'],
    ],
    [{ field: 'files[]', filename: 'gone.png', contentType: 'image/png', data: PNG }],
  );
  const sent = await api.request('POST', '/api/v1/admin/outreach/send', { token: admin.token, payload: form.payload, headers: form.headers });
  t.equal(sent.status, 200);
  const [file] = await api.db.selectFrom('files').select('path').where('user_id', '=', admin.user.id).where('model', '=', 'outreach').execute();
  await api.app.services.storage.delete(file.path);

  await runJob(api);

  t.equal(received(admin.email).length, 0, 'nothing went out');
  const email = await api.db.selectFrom('emails').selectAll().where('to_address', '=', admin.email).where('kind', '=', 'outreach').executeTakeFirstOrThrow();
  t.equal(email.status, 'pending', 'retried later');
  t.match(email.last_error, /stored file .+ is missing/);
});

t.test('without SMTP_URL each message is written as an .eml file under DATA_DIR/outbox', async (t) => {
  const local = await startApp(t); // the default configuration
  t.equal(local.config.smtpUrl, undefined);
  const res = await local.request('POST', '/api/v1/send-verification-code', { body: { contact: 'offline@example.test', type: 'email' } });
  t.equal(res.status, 200);
  const queued = await local.db.selectFrom('emails').selectAll().where('to_address', '=', 'offline@example.test').executeTakeFirstOrThrow();
  await runJob(local);

  const outbox = path.join(local.config.dataDir, 'outbox');
  const files = (await readdir(outbox)).filter((name) => name.endsWith('.eml'));
  t.equal(files.length, 1);
  t.match(files[0], new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z-${queued.id}\\.eml$`), 'named by time and outbox id');
  const message = parseMessage(await readFile(path.join(outbox, files[0]), 'utf8'));
  t.equal(message.from, 'Finance <no-reply@localhost>', 'the default sender');
  t.equal(message.to, 'offline@example.test');
  t.equal(message.subject, queued.subject);
  const code = /\b(\d{6})\b/.exec(message.text)?.[1];
  t.ok(code, 'the code can be read from the file');
  t.ok(message.html.includes(code!), 'in the HTML part too');
  const row = await local.db.selectFrom('emails').selectAll().where('id', '=', queued.id).executeTakeFirstOrThrow();
  t.equal(row.status, 'sent');
  t.equal(row.message_id, message.headers['message-id']);
  t.equal(
    (await local.request('POST', '/api/v1/verify-code', { body: { contact: 'offline@example.test', type: 'email', code } })).status,
    200,
  );
  transportFor(local.config).close();
});

t.test('mail settings are validated at start', async (t) => {
  t.throws(() => loadConfig({ SMTP_URL: 'http://mail.example' }), /SMTP_URL/);
  t.throws(() => loadConfig({ MAIL_FROM: 'not an address' }), /MAIL_FROM/);
  const config = loadConfig({ SMTP_URL: 'smtps://u:p@mail.example:465', MAIL_FROM: 'ops@example.com', DATA_DIR: api.config.dataDir });
  t.equal(config.smtpUrl, 'smtps://u:p@mail.example:465');
  t.equal(config.mailFrom, 'ops@example.com');
  t.equal(loadConfig({ DATA_DIR: api.config.dataDir }).mailFrom, 'Finance <no-reply@localhost>');
});

t.test('every attempt of one outbox row sends the same Message-ID, so a repeated message is one to mail systems', async (t) => {
  clock = new Date('2026-05-05T10:00:00Z');
  const id = await queue(api, 'dedupe@example.test');
  const attempts: Array<string | undefined> = [];
  // accepted by the server, then the acknowledgement is lost (as when the process dies before marking it sent)
  const lostAck = {
    kind: 'smtp' as const,
    messageDomain: 'finance.test',
    async send(message: { messageId?: string }) {
      attempts.push(message.messageId);
      throw new Error('connection lost after DATA');
    },
    close() {},
  };
  await deliverPendingEmails(api.db, lostAck, api.app.services.storage, () => clock);
  const stored = (await emailRow(id)).message_id;
  t.match(stored, /^<[0-9a-f-]{36}@finance\.test>$/, 'the Message-ID is stored before the first attempt');
  t.same(attempts, [stored]);

  clock = new Date(clock.getTime() + 6 * 60_000); // past the retry delay
  await runJob(api);
  const [message] = received('dedupe@example.test');
  t.equal(message.headers['message-id'], stored, 'the retry carries the Message-ID of the attempt before');
  t.match(await emailRow(id), { status: 'sent', message_id: stored, attempts: 2 });
});
