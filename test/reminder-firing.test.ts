// The fire-reminders job with a controllable clock: occurrences in the reminder's zone across
// a DST change, catching up, snooze expiry, pause/resume, one-offs completing, exactly-once
// with two workers and reruns, and delivery following the notification preferences.
import t from 'tap';
import { fireDueReminders, fireRemindersJob } from '../jobs/fire-reminders.js';
import { startApp } from './helpers/harness.js';

let clock = new Date('2026-03-27T06:00:00Z');
const api = await startApp(t, { now: () => clock, tokenTtlSeconds: 10 * 365 * 86400 });
const jobContext = { db: api.db, services: api.app.services, log: api.app.log };
const runJob = () => fireRemindersJob.run(jobContext, {});

async function create(token: string, body: Record<string, unknown>) {
  const res = await api.request('POST', '/api/v1/reminders', { token, body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data as { id: number };
}
const reminderRow = (id: number) => api.db.selectFrom('reminders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const notificationsOf = (reminderId: number) =>
  api.db.selectFrom('notifications').selectAll().where('reminder_id', '=', reminderId).orderBy('id').execute();
const emailsTo = (address: string) => api.db.selectFrom('emails').selectAll().where('to_address', '=', address).orderBy('id').execute();
async function setPreferences(token: string, body: Record<string, unknown>) {
  const res = await api.request('PUT', '/api/v1/notifications/preferences', { token, body });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
}

t.test('a daily 09:00 Paris reminder fires at 09:00 local on both sides of the DST change', async (t) => {
  const user = await api.newUser();
  clock = new Date('2026-03-27T06:00:00Z');
  const reminder = await create(user.token, {
    title: 'Morning check',
    description: 'Log yesterday',
    type: 'daily_tracking',
    repeat_rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0',
    timezone: 'Europe/Paris',
    trigger_at: '2026-03-27T06:00:00Z',
  });
  const fired: string[] = [];
  for (const minute of ['2026-03-27T07:59:00Z', '2026-03-27T08:00:00Z', '2026-03-28T08:00:30Z', '2026-03-29T06:59:00Z', '2026-03-29T07:00:00Z']) {
    clock = new Date(minute);
    await runJob();
    const row = await reminderRow(reminder.id);
    if (row.last_triggered_at?.getTime() === clock.getTime()) fired.push(minute);
  }
  t.same(fired, ['2026-03-27T08:00:00Z', '2026-03-28T08:00:30Z', '2026-03-29T07:00:00Z'], '09:00 CET, then 09:00 CEST');
  const row = await reminderRow(reminder.id);
  t.equal(row.next_trigger_at?.toISOString(), '2026-03-30T07:00:00.000Z');
  t.equal(row.status, 'active');
  const made = await notificationsOf(reminder.id);
  t.equal(made.length, 3);
  t.match(made[0], { user_id: user.user.id, type: 'reminder', title: 'Morning check', body: 'Log yesterday', data: { reminder_id: reminder.id, reminder_type: 'daily_tracking' } });
  const shown = await api.request('GET', `/api/v1/notifications/${made[0].id}`, { token: user.token });
  t.equal(shown.status, 200, 'the in-app notification is readable through the API');
});

t.test('an overdue reminder fires once and schedules the next future occurrence', async (t) => {
  const user = await api.newUser();
  clock = new Date('2026-04-01T00:00:00Z');
  const reminder = await create(user.token, { title: 'Hourly', repeat_rule: 'FREQ=HOURLY', trigger_at: '2026-04-01T00:00:00Z' });
  t.equal((await reminderRow(reminder.id)).next_trigger_at?.toISOString(), '2026-04-01T01:00:00.000Z');
  clock = new Date('2026-04-01T05:30:00Z');
  await runJob();
  await runJob();
  t.equal((await notificationsOf(reminder.id)).length, 1, 'five missed hours fire once');
  t.equal((await reminderRow(reminder.id)).next_trigger_at?.toISOString(), '2026-04-01T06:00:00.000Z');
});

t.test('a one-off reminder fires once and completes; a COUNT rule completes when exhausted', async (t) => {
  const user = await api.newUser();
  clock = new Date('2026-04-10T09:00:00Z');
  const oneOff = await create(user.token, { title: 'Call bank', trigger_at: '2026-04-10T10:00:00Z' });
  const counted = await create(user.token, { title: 'Twice', repeat_rule: 'FREQ=DAILY;COUNT=2', trigger_at: '2026-04-10T10:00:00Z' });
  clock = new Date('2026-04-10T10:00:00Z');
  await runJob();
  t.match(await reminderRow(oneOff.id), { status: 'completed', next_trigger_at: null, last_triggered_at: clock });
  t.match(await reminderRow(counted.id), { status: 'active', last_triggered_at: clock }, 'DTSTART is the first of the two occurrences');
  t.equal((await reminderRow(counted.id)).next_trigger_at?.toISOString(), '2026-04-11T10:00:00.000Z');
  clock = new Date('2026-04-12T10:00:00Z');
  await runJob();
  await runJob();
  t.equal((await notificationsOf(oneOff.id)).length, 1, 'a completed one-off never fires again');
  t.match(await reminderRow(counted.id), { status: 'completed', next_trigger_at: null });
  t.equal((await notificationsOf(counted.id)).length, 2, 'COUNT=2: two firings, then none');
});

t.test('snooze fires once when it expires, then the rule continues', async (t) => {
  const user = await api.newUser();
  clock = new Date('2026-05-01T08:00:00Z');
  const reminder = await create(user.token, { title: 'Stretch', repeat_rule: 'FREQ=DAILY;BYHOUR=20;BYMINUTE=0', trigger_at: '2026-05-01T00:00:00Z' });
  const snoozed = await api.request('POST', `/api/v1/reminders/${reminder.id}/snooze`, { token: user.token, body: { until: '2026-05-01T09:00:00Z' } });
  t.equal(snoozed.body.data.status, 'snoozed');
  clock = new Date('2026-05-01T08:59:00Z');
  await runJob();
  t.equal((await notificationsOf(reminder.id)).length, 0, 'not before the snooze ends');
  clock = new Date('2026-05-01T09:00:00Z');
  await runJob();
  await runJob();
  t.equal((await notificationsOf(reminder.id)).length, 1);
  t.match(await reminderRow(reminder.id), { status: 'active', snoozed_until: null });
  t.equal((await reminderRow(reminder.id)).next_trigger_at?.toISOString(), '2026-05-01T20:00:00.000Z');
});

t.test('paused reminders do not fire; resumed ones fire at the next occurrence', async (t) => {
  const user = await api.newUser();
  clock = new Date('2026-06-01T08:00:00Z');
  const reminder = await create(user.token, { title: 'Budget look', repeat_rule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', trigger_at: '2026-06-01T00:00:00Z' });
  await api.request('POST', `/api/v1/reminders/${reminder.id}/pause`, { token: user.token });
  clock = new Date('2026-06-03T12:00:00Z');
  await runJob();
  t.equal((await notificationsOf(reminder.id)).length, 0);
  const resumed = await api.request('POST', `/api/v1/reminders/${reminder.id}/resume`, { token: user.token });
  t.equal(resumed.body.data.next_trigger_at, '2026-06-04T09:00:00.000Z', 'missed days are not replayed');
  await runJob();
  t.equal((await notificationsOf(reminder.id)).length, 0);
  clock = new Date('2026-06-04T09:00:00Z');
  await runJob();
  t.equal((await notificationsOf(reminder.id)).length, 1);
  const deleted = await create(user.token, { title: 'Deleted', trigger_at: '2026-06-04T09:00:00Z' });
  await api.request('DELETE', `/api/v1/reminders/${deleted.id}`, { token: user.token });
  await runJob();
  t.equal((await notificationsOf(deleted.id)).length, 0, 'a deleted reminder never fires');
});

t.test('two workers at once fire each occurrence exactly once', async (t) => {
  const user = await api.newUser();
  clock = new Date('2026-07-01T08:00:00Z');
  const reminders = await Promise.all(
    Array.from({ length: 12 }, (_, i) => create(user.token, { title: `R${i}`, repeat_rule: 'FREQ=DAILY', trigger_at: '2026-07-01T08:00:00Z' })),
  );
  clock = new Date('2026-07-02T08:00:00Z');
  const [a, b] = await Promise.all([fireDueReminders(api.db, clock), fireDueReminders(api.db, clock)]);
  // Reminders of the other tests are due too; only this test's are counted. How the two split
  // the work is the scheduler's (the embedded database, on its own thread, may serve one first).
  t.ok(a + b >= 12, `the two workers fired every due reminder between them (${a} + ${b})`);
  for (const reminder of reminders) t.equal((await notificationsOf(reminder.id)).length, 1);
  t.equal(await fireDueReminders(api.db, clock), 0, 'a rerun fires nothing');
  t.equal((await notificationsOf(reminders[0].id)).length, 1);
});

t.test('delivery follows the preferences', async (t) => {
  clock = new Date('2026-08-01T08:00:00Z');
  const both = await api.newUser();
  const noEmail = await api.newUser();
  const noReminders = await api.newUser();
  const noInApp = await api.newUser();
  await setPreferences(noEmail.token, { channels: { email: false } });
  await setPreferences(noReminders.token, { types: { reminders: false } });
  await setPreferences(noInApp.token, { channels: { inapp: false } });
  const ids = new Map<string, number>();
  for (const [name, user] of Object.entries({ both, noEmail, noReminders, noInApp })) {
    ids.set(name, (await create(user.token, { title: `Pay ${name}`, description: 'Rent is due', trigger_at: '2026-08-01T09:00:00Z' })).id);
  }
  clock = new Date('2026-08-01T09:00:00Z');
  await runJob();

  t.equal((await notificationsOf(ids.get('both')!)).length, 1);
  const mail = await emailsTo(both.email);
  t.equal(mail.length, 1, 'e-mail on: one row in the outbox');
  t.match(mail[0], { user_id: both.user.id, kind: 'notification', subject: 'Pay both', text_body: 'Rent is due', status: 'pending' });

  t.equal((await notificationsOf(ids.get('noEmail')!)).length, 1);
  t.equal((await emailsTo(noEmail.email)).length, 0, 'e-mail off: no e-mail');
  t.equal((await notificationsOf(ids.get('noReminders')!)).length, 0, 'reminders off: nothing at all');
  t.equal((await emailsTo(noReminders.email)).length, 0);
  t.equal((await notificationsOf(ids.get('noInApp')!)).length, 0, 'in-app off: no notification row');
  t.equal((await emailsTo(noInApp.email)).length, 1, '...but the e-mail still goes');
  for (const id of ids.values()) t.equal((await reminderRow(id)).status, 'completed', 'fired, whatever was delivered');
});

t.test("the reminder's title and description are escaped in the e-mail's HTML", async (t) => {
  clock = new Date('2026-09-01T08:00:00Z');
  const user = await api.newUser();
  const { id } = await create(user.token, { title: 'Rent <b>& "co"</b>\r\nBcc: someone@example.test', description: '<script>alert(1)</script>', trigger_at: '2026-09-01T09:00:00Z' });
  clock = new Date('2026-09-01T09:00:00Z');
  await runJob();
  t.equal((await notificationsOf(id)).length, 1);
  const [mail] = await emailsTo(user.email);
  t.notOk(mail.html_body?.includes('<script>'), 'no markup from the user');
  t.notOk(mail.html_body?.includes('<b>'), 'no markup from the user');
  t.ok(mail.html_body?.includes('&#60;script&#62;'), 'shown as text');
  t.equal(mail.to_address, user.email, 'the title never changes the recipients');
});
