// Crash safety, recurring transactions: with 20 rules that each missed 40 daily occurrences
// (the service was down for 40 days), the real service (a child process) starts, and is
// killed with SIGKILL in the middle of the run that catches them up; it restarts on the same
// database. Between lives the test reads the database as the crash left it: each
// rule has exactly the occurrences its schedule has passed (a rule is caught up in one database
// transaction, so a crash leaves it all done or not started); after the restart every
// occurrence exists once. Embedded database by default, PostgreSQL with DATABASE_URL.
import { sql, type Kysely } from 'kysely';
import t from 'tap';
import type { Database } from '../db/schema.js';
import { Contract } from '../server/contract.js';
import { ledgerHolds, serviceClient, serviceDatabase, startService, until as waitFor, type ServiceProcess } from './helpers/service-process.js';

const RULES = 20;
// 800 occurrences: the run takes seconds on either database, long enough to be killed part-way
// (it was 100 days, 2,000 occurrences: the same property at 2.5 times the time)
const MISSED_DAYS = 40;
const DAY = 86_400_000;

const contract = await Contract.load();
const database = await serviceDatabase();
t.teardown(() => database.drop());

let service: ServiceProcess | undefined;
t.teardown(() => service?.kill());
const started = Date.now();
const start = async () => {
  service = await startService(database.env);
  t.comment(`service started at ${((Date.now() - started) / 1000).toFixed(1)} s`);
};
const call = serviceClient(() => service!, contract);
const until = <T>(what: string, probe: () => Promise<T | undefined>) => waitFor(what, probe, service);

/** Per rule: the occurrences made, their distinct dates, and how many its schedule has passed. */
async function occurrenceCounts(db: Kysely<Database>, userId: number) {
  const { rows } = await sql<{ template: number; made: number; distinct_dates: number; expected: number }>`
    select r.transaction_id as template,
           (select count(*)::int from transactions o where o.recurring_parent_id = r.transaction_id and o.deleted_at is null) as made,
           (select count(distinct o.recurring_occurrence_at)::int from transactions o where o.recurring_parent_id = r.transaction_id) as distinct_dates,
           (round(extract(epoch from (r.next_scheduled_at - t.datetime)) / 86400) - 1)::int as expected
    from recurring_rules r join transactions t on t.id = r.transaction_id
    where r.user_id = ${userId} order by r.transaction_id`.execute(db);
  return rows;
}

let token = '';
let userId = 0;
const transactionCount = async () => (await call('listTransactions', 'GET', '/v1/transactions?limit=1', { token })).body.data.total as number;

t.test(`rules are made, then the service is down for ${MISSED_DAYS} days`, async (t) => {
  // made in this process: a service life only to create them would cost a start
  await database.inProcess(contract, async (app) => {
    const request = async (operationId: string, method: 'GET' | 'POST', url: string, payload?: object) => {
      const response = await app.inject({ method, url, payload, headers: token ? { authorization: `Bearer ${token}` } : {} });
      t.same(contract.checkResponse(operationId, response.statusCode, response.json()), [], `${operationId} answers by the spec`);
      return response;
    };
    const registered = (await request('registerUser', 'POST', '/api/register', { email: 'recurring@example.test', password: 'correct horse battery', first_name: 'Crash', last_name: 'Test' })).json();
    token = registered.data.token;
    userId = registered.data.user.id;
    const wallet = (await request('listWallets', 'GET', '/api/v1/wallets')).json().data.data[0].id as number;
    for (let i = 0; i < RULES; i += 1) {
      const made = await request('createTransaction', 'POST', '/api/v1/transactions', { type: 'income', amount: 1.5, wallet_id: wallet, datetime: new Date().toISOString(), description: `rule-${i}`, is_recurring: true, recurrence_period: 'daily' });
      t.equal(made.statusCode, 201);
    }
  });
  // Moving every rule's template and schedule back is what days down look like.
  await database.inspect(async (db) => {
    const rules = await db.selectFrom('recurring_rules').select(['id', 'transaction_id', 'next_scheduled_at']).where('user_id', '=', userId).execute();
    t.equal(rules.length, RULES);
    for (const rule of rules) {
      const anchor = new Date(rule.next_scheduled_at.getTime() - (MISSED_DAYS + 1) * DAY);
      await db.updateTable('transactions').set({ datetime: anchor }).where('id', '=', rule.transaction_id).execute();
      await db.updateTable('recurring_rules').set({ next_scheduled_at: new Date(anchor.getTime() + DAY) }).where('id', '=', rule.id).execute();
    }
  });
});

t.test('life 1: killed in the middle of the run that catches up', async (t) => {
  await start();
  const seen = await until('the run to be part-way', async () => {
    const n = await transactionCount();
    return n > RULES && n < RULES * (MISSED_DAYS + 1) ? n : undefined;
  });
  await service!.kill();
  t.comment(`killed after at least ${seen - RULES} of ${RULES * MISSED_DAYS} occurrences`);

  await database.inspect(async (db) => {
    const counts = await occurrenceCounts(db, userId);
    const made = counts.reduce((sum, rule) => sum + rule.made, 0);
    t.ok(made > 0 && made < RULES * MISSED_DAYS, `${made} occurrences were committed, not all`);
    t.same(
      counts.filter((rule) => rule.made !== rule.expected || rule.distinct_dates !== rule.made),
      [],
      "each rule's occurrences are exactly those its schedule has passed: none half-made, none twice",
    );
    t.ok(await ledgerHolds(db, userId), 'balances equal their ledgers');
  });
});

t.test('life 2: the run resumes at start; every occurrence exists once', async (t) => {
  await start();
  await until('the run to finish', async () => ((await transactionCount()) === RULES * (MISSED_DAYS + 1) ? true : undefined));
  await service!.stop();
  await database.inspect(async (db) => {
    const counts = await occurrenceCounts(db, userId);
    t.same(
      counts.filter((rule) => rule.made !== MISSED_DAYS || rule.distinct_dates !== MISSED_DAYS || rule.expected !== MISSED_DAYS),
      [],
      `each of ${RULES} rules made its ${MISSED_DAYS} occurrences, once each`,
    );
    t.ok(await ledgerHolds(db, userId), 'balances equal their ledgers');
  });
});
