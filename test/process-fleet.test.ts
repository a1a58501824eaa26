// A fleet of three service processes on one PostgreSQL database and one Redis, each with a data
// folder of its own and no APP_KEY, as an operator runs them behind a load balancer:
// (a) a token from one works on all, and an attachment stored through one is served
// byte-identical by all, for each shared store (STORAGE_URL=database for the fleet, two more
// processes on s3rver); (b) the sync fleet (test/helpers/sync-fleet.ts) converges with each of
// its requests sent to the next of the three; (c) queued and scheduled jobs run exactly once
// across the three (recurring occurrences caught up by three processes starting at once, due
// reminders, e-mails, and the budget close run by all three at the same moment behind a lock
// barrier: one state row and one announcement per window); (d) the per-user rate limit holds
// across processes; (e) a process SIGKILLed while creates are in flight: every acknowledged
// create is stored, and a client retrying them all on the others with their client_ids makes
// no duplicate; (f) a rolling restart under steady traffic, behind a balancer that follows the
// readiness probe (as a real one does), answers no request with a 5xx or a broken connection.
// PostgreSQL and Redis only: the embedded database is one process's own.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import t from 'tap';
import { Contract } from '../server/contract.js';
import { ledgerHolds, roundRobin, serviceClient, serviceDatabase, startService, until, type ServiceProcess } from './helpers/service-process.js';
import { runAdminCommand } from '../scripts/admin.js';
import { startObjectStore } from './helpers/object-store.js';
import { startSmtpServer } from './helpers/smtp.js';
import { syncFleetConverges } from './helpers/sync-fleet.js';
import { multipart, PNG } from './helpers/transaction-fixtures.js';
import { startWebhookReceiver } from './helpers/webhook-receiver.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DAY = 86_400_000;
/** The per-user limit (a minute): the default, so the steady traffic below stays far under it. */
const RATE_LIMIT = 600;
const RECURRING_RULES = 5;
const MISSED_DAYS = 20;
const runId = randomUUID().slice(0, 8);
const REMINDERS = 4;
/** Rollover budgets whose ended weekly windows the three processes close at once. */
const BUDGETS = 6;
const ENDED_WEEKS = 8;

if (!process.env.DATABASE_URL) {
  t.test('several processes share one database only on PostgreSQL (DATABASE_URL)', { skip: true }, async () => {});
} else {
  const contract = await Contract.load();
  const database = await serviceDatabase();
  const smtp = await startSmtpServer();
  const hooks = await startWebhookReceiver();
  const dataDirs: string[] = [];
  const fleet: ServiceProcess[] = [];
  t.teardown(async () => {
    await Promise.all(fleet.map((member) => member.kill()));
    await smtp.close();
    await hooks.close();
    await database.drop();
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** One more process: its own data folder, the shared database, Redis and SMTP, no APP_KEY. */
  const startMember = async (env: Record<string, string> = {}): Promise<ServiceProcess> => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'finance-fleet-'));
    dataDirs.push(dataDir);
    const member = await startService({
      ...database.env,
      DATA_DIR: dataDir,
      APP_KEY: '',
      REDIS_URL: redisUrl,
      // this run's own counters: Redis outlives the run, and user ids repeat in every new database
      REDIS_KEY_PREFIX: `fleet-${runId}:`,
      RATE_LIMIT_API: String(RATE_LIMIT),
      SHUTDOWN_DELAY: '1',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Finance <no-reply@fleet.example>',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1',
      // no BUILD_ID: processes of one release agree on their ETags by the code they run (the sync
      // fleet's revalidations through another process must still answer 304)
      BUILD_ID: '',
      // the shared store every process reaches (each store's own behaviour: file-stores.test.ts)
      STORAGE_URL: 'database',
      ...env,
    });
    await until('the process to be ready', async () => ((await fetch(`${member.url}/api/health/ready`)).ok ? true : undefined), member, 30);
    return member;
  };
  const via = (member: () => ServiceProcess) => serviceClient(member, contract);

  let owner = { token: '', id: 0 };
  const reminders: number[] = [];
  let wallet = 0;

  t.test('before the fleet: recurring rules that missed 20 days', async (t) => {
    await database.inProcess(contract, async (app) => {
      const registered = await app.inject({ method: 'POST', url: '/api/register', payload: { email: 'fleet@example.test', password: 'correct horse battery', first_name: 'Fleet', last_name: 'Owner' } });
      owner = { token: registered.json().data.token, id: registered.json().data.user.id };
      const headers = { authorization: `Bearer ${owner.token}` };
      wallet = (await app.inject({ method: 'GET', url: '/api/v1/wallets', headers })).json().data.data[0].id;
      for (let i = 0; i < RECURRING_RULES; i++) {
        const made = await app.inject({ method: 'POST', url: '/api/v1/transactions', headers, payload: { type: 'income', amount: 2.5, wallet_id: wallet, description: `rule-${i}`, is_recurring: true, recurrence_period: 'daily' } });
        t.equal(made.statusCode, 201);
      }
    });
    // moving each template and its schedule back is what 20 days without a service looks like
    await database.inspect(async (db) => {
      const rules = await db.selectFrom('recurring_rules').select(['id', 'transaction_id', 'next_scheduled_at']).where('user_id', '=', owner.id).execute();
      for (const rule of rules) {
        const anchor = new Date(rule.next_scheduled_at.getTime() - (MISSED_DAYS + 1) * DAY);
        await db.updateTable('transactions').set({ datetime: anchor }).where('id', '=', rule.transaction_id).execute();
        await db.updateTable('recurring_rules').set({ next_scheduled_at: new Date(anchor.getTime() + DAY) }).where('id', '=', rule.id).execute();
      }
    });
  });

  t.test('(a) three processes started at once, no APP_KEY: one key, a token from any works on all', async (t) => {
    fleet.push(...(await Promise.all([startMember(), startMember(), startMember()])));
    const keys = await database.inspect((db) => db.selectFrom('app_key').selectAll().execute());
    t.equal(keys.length, 1, 'one key in the database');
    // the rules' owner signs in through process 0 (the token made before was signed with another key)
    const login = await via(() => fleet[0]!)('loginUser', 'POST', '/login', { json: { email: 'fleet@example.test', password: 'correct horse battery' } });
    t.equal(login.status, 200);
    owner.token = login.body.data.token;
    for (const [i, member] of fleet.entries()) {
      const user = await via(() => member)('getCurrentUser', 'GET', '/v1/user', { token: owner.token });
      t.equal(user.status, 200, `process ${i} accepts the token process 0 made`);
      t.equal(user.body.data.id, owner.id);
    }
    const registered = await via(() => fleet[1]!)('registerUser', 'POST', '/register', { json: { email: 'fleet-two@example.test', password: 'correct horse battery', first_name: 'Fleet', last_name: 'Two' } });
    t.equal(registered.status, 201);
    for (const [i, member] of fleet.entries()) {
      t.equal((await via(() => member)('getCurrentUser', 'GET', '/v1/user', { token: registered.body.data.token })).status, 200, `a token from process 1 works on process ${i}`);
    }
    // an attachment uploaded through one process is served byte-identical by all
    const receipt = Buffer.concat([PNG, randomBytes(300_000)]);
    const form = multipart([['type', 'expense'], ['amount', '9.5'], ['wallet_id', String(wallet)]], [{ field: 'files[]', filename: 'receipt.png', contentType: 'image/png', data: receipt }]);
    const created = await via(() => fleet[2]!)('createTransaction', 'POST', '/v1/transactions', { token: owner.token, form });
    t.equal(created.status, 201);
    const fileId = created.body.data.files[0].id;
    for (const [i, member] of fleet.entries()) {
      const served = await fetch(`${member.url}/api/v1/files/${fileId}`, { headers: { authorization: `Bearer ${owner.token}` } });
      t.equal(served.status, 200);
      t.ok(Buffer.from(await served.arrayBuffer()).equals(receipt), `process ${i} serves the attachment process 2 stored, byte-identical`);
    }

    // due at once: the scheduled run (every minute, on whichever process) fires them; checked at the end
    const dueAt = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < REMINDERS; i++) {
      const made = await via(() => fleet[i % 3]!)('createReminder', 'POST', '/v1/reminders', { token: owner.token, json: { title: `Fleet reminder ${i}`, trigger_at: dueAt } });
      t.equal(made.status, 201);
      reminders.push(made.body.data.id);
    }
  });

  t.test('(b) the sync fleet converges with each of its requests sent to the next of the three', (t) =>
    database.inspect((db) => syncFleetConverges(t, roundRobin(() => fleet, contract), db)),
  );

  t.test('(a) the S3-compatible store: an attachment stored through one process is served byte-identical by another', async (t) => {
    const objectStore = await startObjectStore(t);
    const { bucket, endpoint, region } = objectStore.storage() as { bucket: string; endpoint: string; region: string };
    // two web-only processes (RUN_JOBS=false) on the object store, beside the fleet on the database store
    const onS3 = await Promise.all(
      [0, 1].map(() =>
        startMember({
          STORAGE_URL: `s3://${bucket}/fleet?endpoint=${encodeURIComponent(endpoint)}&region=${region}&force_path_style=true`,
          AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID!,
          AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY!,
          RUN_JOBS: 'false',
        }),
      ),
    );
    t.teardown(() => Promise.all(onS3.map((member) => member.kill())));
    const receipt = Buffer.concat([PNG, randomBytes(300_000)]);
    const form = multipart([['type', 'expense'], ['amount', '3.5'], ['wallet_id', String(wallet)]], [{ field: 'files[]', filename: 's3-receipt.png', contentType: 'image/png', data: receipt }]);
    const created = await via(() => onS3[0]!)('createTransaction', 'POST', '/v1/transactions', { token: owner.token, form });
    t.equal(created.status, 201);
    const served = await fetch(`${onS3[1]!.url}/api/v1/files/${created.body.data.files[0].id}`, { headers: { authorization: `Bearer ${owner.token}` } });
    t.equal(served.status, 200);
    t.ok(Buffer.from(await served.arrayBuffer()).equals(receipt), 'the other process serves it byte-identical');
  });

  t.test('(c) jobs: the recurring catch-up the three ran at start made each occurrence once; e-mails are sent once', async (t) => {
    const counts = await until('every missed occurrence to be made', () =>
      database.inspect(async (db) => {
        const { rows } = await sql<{ made: number; dates: number }>`
          select count(*)::int as made, count(distinct (recurring_parent_id, recurring_occurrence_at))::int as dates
          from transactions where user_id = ${owner.id} and recurring_parent_id is not null and deleted_at is null`.execute(db);
        return rows[0]!.made >= RECURRING_RULES * MISSED_DAYS ? rows[0] : undefined;
      }),
    );
    t.same(counts, { made: RECURRING_RULES * MISSED_DAYS, dates: RECURRING_RULES * MISSED_DAYS }, 'every occurrence once, none twice');
    t.ok(await database.inspect((db) => ledgerHolds(db, owner.id)), 'the wallet holds what its transactions add up to');

    const contacts = Array.from({ length: 6 }, (_, i) => `fleet-code-${i}@example.test`);
    for (const [i, contact] of contacts.entries()) {
      t.equal((await via(() => fleet[i % 3]!)('sendVerificationCode', 'POST', '/send-verification-code', { json: { contact, type: 'email' } })).status, 200);
    }
    await until('every code e-mail to arrive', async () => (contacts.every((c) => smtp.messages.some((m) => m.envelope.to.includes(c))) ? true : undefined));
    // a second delivery would come from another process's worker polling the same outbox
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const contact of contacts) t.equal(smtp.messages.filter((m) => m.envelope.to.includes(contact)).length, 1, `${contact}: one e-mail`);
  });

  t.test('(c) budget windows: the close run by all three at the same moment closes each window once', async (t) => {
    const user = (await via(() => fleet[0]!)('registerUser', 'POST', '/register', { json: { email: 'fleet-budgets@example.test', password: 'correct horse battery', first_name: 'Fleet', last_name: 'Budgets' } })).body.data;
    const endpoint = await via(() => fleet[1]!)('createWebhookEndpoint', 'POST', '/v1/webhooks', { token: user.token, json: { url: hooks.url, event_kinds: ['budget.period_closed'] } });
    t.equal(endpoint.status, 201);
    // weekly windows (Monday to Sunday, UTC): starting ENDED_WEEKS Mondays before this week's.
    // A week ending while the step runs would add a window: close to Monday 00:00, start after it.
    const untilMonday = DAY * ((8 - new Date().getUTCDay()) % 7 || 7) - (Date.now() % DAY);
    if (untilMonday < 2 * 60_000) await new Promise((resolve) => setTimeout(resolve, untilMonday + 1000));
    const today = new Date(new Date().toISOString().slice(0, 10));
    const start = new Date(today.getTime() - (((today.getUTCDay() + 6) % 7) + 7 * ENDED_WEEKS) * DAY).toISOString().slice(0, 10);
    for (let i = 0; i < BUDGETS; i++) {
      const made = await via(() => fleet[i % 3]!)('createBudget', 'POST', '/v1/budgets', { token: user.token, json: { name: `Weekly ${i}`, amount: 40, currency: 'USD', period_type: 'weekly', start_date: start, rollover_enabled: true } });
      t.equal(made.status, 201);
    }

    // The barrier: while this transaction holds the budgets table, every close run waits at its
    // first read of it. Three runs are queued as an operator would (npm run admin -- run-job);
    // a process's worker runs one job at a time, so three waiting runs are three processes.
    // Released together, they close the same budgets at the same moment.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const barrier = database.inspect((db) =>
      db.transaction().execute(async (trx) => {
        await sql`lock table budgets in access exclusive mode`.execute(trx);
        locked();
        await released;
      }),
    );
    await isLocked;
    for (let i = 0; i < 3; i++) {
      t.equal((await database.inspect((db) => runAdminCommand(db, ['run-job', 'close-budget-periods'], database.env.DATABASE_URL))).exitCode, 0, 'a close run queued');
    }
    const waiting = () =>
      database.inspect(async (db) => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like '%rollover_enabled%'`.execute(db);
        return rows[0]!.n;
      });
    try {
      await until('three close runs to wait at the barrier', async () => ((await waiting()) === 3 ? true : undefined), undefined, 30);
    } finally {
      release();
      await barrier;
    }

    const windows = BUDGETS * ENDED_WEEKS;
    await until('every closed window to be announced', async () => (hooks.received.length >= windows ? true : undefined), undefined, 60);
    // a second close of a window, or a second delivery, would come from another process meanwhile
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const states = await database.inspect(async (db) => {
      const { rows } = await sql<{ budget_id: number; closed: number; chain_off: number }>`
        select budget_id, count(*)::int as closed,
          count(*) filter (where s.rollover_in <> 40 * (s.n - 1))::int as chain_off
        from (select budget_id, rollover_in, row_number() over (partition by budget_id order by period_start) as n
              from budget_period_states where user_id = ${user.user.id}) s
        group by budget_id`.execute(db);
      return rows;
    });
    t.same(states.map((row) => [row.closed, row.chain_off]), Array(BUDGETS).fill([ENDED_WEEKS, 0]), 'every budget: one state row per ended window, each rolling over the one before');
    const events = await database.inspect((db) => db.selectFrom('webhook_events').select('subject_id').where('user_id', '=', user.user.id).where('kind', '=', 'budget.period_closed').execute());
    t.equal(events.length, windows, `${windows} windows: one budget.period_closed event each`);
    t.equal(new Set(events.map((e) => e.subject_id)).size, windows, 'no window announced twice');
    const delivered = hooks.received.map((hook) => JSON.parse(hook.body).data.id as number);
    t.equal(delivered.length, windows, 'each delivered once');
    t.equal(new Set(delivered).size, windows);
  });

  t.test('(d) the per-user rate limit holds across the three (Redis)', async (t) => {
    const user = await via(() => fleet[0]!)('registerUser', 'POST', '/register', { json: { email: 'fleet-limit@example.test', password: 'correct horse battery', first_name: 'Fleet', last_name: 'Limit' } });
    const token = user.body.data.token as string;
    const statuses: number[] = [];
    for (let sent = 0; sent < RATE_LIMIT + 15; sent += 15) {
      const batch = await Promise.all(Array.from({ length: 15 }, (_, i) => fetch(`${fleet[(sent + i) % 3]!.url}/api/v1/user`, { headers: { authorization: `Bearer ${token}` } })));
      statuses.push(...batch.map((r) => r.status));
      await Promise.all(batch.map((r) => r.arrayBuffer()));
    }
    t.equal(statuses.filter((s) => s === 200).length, RATE_LIMIT, `${RATE_LIMIT} answered, spread over three processes`);
    t.equal(statuses.filter((s) => s === 429).length, 15, 'the rest refused with 429');
  });

  t.test('(e) a process killed with creates in flight: every acknowledged create is there; retried on the others, none twice', async (t) => {
    const victim = fleet[2]!;
    const device = randomUUID();
    const bodies = Array.from({ length: 40 }, (_, i) => ({ type: 'expense', amount: 1.25, wallet_id: wallet, description: `in-flight-${i}`, client_id: `${device}:${randomUUID()}` }));
    const acknowledged = new Map<string, number>();
    let answered = 0;
    let killed: Promise<void> | undefined;
    await Promise.all(
      bodies.map(async (body, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 5));
        try {
          const res = await fetch(`${victim.url}/api/v1/transactions`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
          const json = await res.json();
          if (res.status === 201) acknowledged.set(body.client_id, json.data.id);
          if (++answered === 10) killed = victim.kill();
        } catch {
          // the connection died with the process: the client does not know, and retries
        }
      }),
    );
    await killed;
    t.ok(acknowledged.size >= 10 && acknowledged.size < bodies.length, `killed part-way: ${acknowledged.size} of ${bodies.length} acknowledged`);

    for (const [i, body] of bodies.entries()) {
      const retried = await via(() => fleet[i % 2]!)('createTransaction', 'POST', '/v1/transactions', { token: owner.token, json: body });
      t.ok(retried.status === 200 || retried.status === 201, `retry ${i} succeeds (${retried.status} ${retried.status >= 300 ? JSON.stringify(retried.body) : ""})`);
      const first = acknowledged.get(body.client_id);
      if (first !== undefined) t.equal(retried.body.data.id, first, `retry ${i} names the record the killed process acknowledged`);
    }
    const stored = await database.inspect(async (db) => {
      const { rows } = await sql<{ n: number; distinct_ids: number }>`
        select count(*)::int as n, count(distinct client_generated_id)::int as distinct_ids
        from transactions where user_id = ${owner.id} and description like 'in-flight-%' and deleted_at is null`.execute(db);
      return rows[0];
    });
    t.same(stored, { n: bodies.length, distinct_ids: bodies.length }, 'each create stored once');
    t.ok(await database.inspect((db) => ledgerHolds(db, owner.id)), 'balances agree with the transactions');
    fleet[2] = await startMember();
  });

  t.test('(f) a rolling restart under steady traffic: no 5xx, no broken connection', async (t) => {
    // The balancer: sends only to processes whose readiness probe last answered 200, probed
    // every 200 ms (SHUTDOWN_DELAY is 1 s: the probe sees a stopping process well before it drains).
    const ready = new Set<ServiceProcess>(fleet);
    let probing = true;
    const prober = (async () => {
      while (probing) {
        await Promise.all(
          [...fleet].map(async (member) => {
            const ok = await fetch(`${member.url}/api/health/ready`).then(async (r) => (await r.arrayBuffer(), r.ok), () => false);
            if (ok) ready.add(member);
            else ready.delete(member);
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const users = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => (await via(() => fleet[i % 3]!)('registerUser', 'POST', '/register', { json: { email: `fleet-traffic-${i}@example.test`, password: 'correct horse battery', first_name: 'Fleet', last_name: `Traffic ${i}` } })).body.data),
    );
    const wallets = await Promise.all(users.map(async (u) => (await via(() => fleet[0]!)('listWallets', 'GET', '/v1/wallets', { token: u.token })).body.data.data[0].id as number));
    const failures: string[] = [];
    let sent = 0;
    let turn = 0;
    let running = true;
    const worker = async (w: number) => {
      while (running) {
        const members = [...ready];
        const member = members[turn++ % members.length];
        if (!member) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const u = (sent + w) % users.length;
        const write = sent % 3 === 0;
        sent++;
        try {
          const res = write
            ? await fetch(`${member.url}/api/v1/transactions`, { method: 'POST', headers: { authorization: `Bearer ${users[u].token}`, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'expense', amount: 0.5, wallet_id: wallets[u], client_id: `${randomUUID()}:${randomUUID()}` }) })
            : await fetch(`${member.url}/api/v1/transactions?limit=5`, { headers: { authorization: `Bearer ${users[u].token}` } });
          await res.arrayBuffer();
          if (res.status >= 500) failures.push(`${res.status} from ${member.url}`);
        } catch (error) {
          failures.push(`${(error as Error).message} (${String((error as { cause?: unknown }).cause)}) from ${member.url}`);
        }
      }
    };
    const workers = Array.from({ length: 4 }, (_, w) => worker(w));
    for (let i = 0; i < fleet.length; i++) {
      const old = fleet[i]!;
      await old.stop(); // SIGTERM: not ready at once, served 1 s more, drained, gone
      ready.delete(old);
      fleet[i] = await startMember();
      await until('the new process to join the balancer', async () => (ready.has(fleet[i]!) ? true : undefined));
    }
    running = false;
    await Promise.all(workers);
    probing = false;
    await prober;
    t.ok(sent > 100, `${sent} requests during the restarts`);
    t.same(failures.slice(0, 5), [], `${failures.length} requests failed`);
    for (const u of users) t.ok(await database.inspect((db) => ledgerHolds(db, u.user.id)), `user ${u.user.id}: the ledger holds`);
  });

  t.test('(c) scheduled jobs: each due reminder fired once, whichever process ran the minute', async (t) => {
    const fired = () =>
      database.inspect(async (db) => {
        const { rows } = await sql<{ reminder_id: number; n: number }>`
          select reminder_id, count(*)::int as n from notifications where reminder_id = any(${reminders}::bigint[]) group by reminder_id`.execute(db);
        return rows;
      });
    await until('the due reminders to fire', async () => ((await fired()).length === REMINDERS ? true : undefined), undefined, 90);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    t.same((await fired()).map((row) => row.n), Array(REMINDERS).fill(1), 'one notification each');
  });
}
