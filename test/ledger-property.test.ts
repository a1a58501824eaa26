// Property: after any sequence of creates, updates and deletes of transactions and transfers
// (accepted or refused), every wallet's balance equals its opening balance plus its live
// incomes minus its live expenses, exactly. Sequences are random but seeded: a failure
// prints its seed, and PROPERTY_SEED replays it.
import t, { type Test } from 'tap';
import { sql } from 'kysely';
import { Rng } from './helpers/fuzz-values.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);

/** The seeded generator of the fuzzer (mulberry32), so a failing sequence can be replayed. */
function generator(seed: number) {
  const rng = new Rng(seed);
  const next = () => rng.next();
  return {
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: T[]): T => items[Math.floor(next() * items.length)],
    /** An amount with up to 4 decimals, as a JSON number from its exact text. */
    amount: () => Number(`${Math.floor(next() * 500)}.${String(Math.floor(next() * 10000)).padStart(4, '0')}`) || 0.0001,
  };
}

async function ledgerMismatches(userId: number) {
  const rows = await sql<{ id: number; balance: string; ledger: string }>`
    select w.id, w.balance::text as balance,
      (w.opening_balance + coalesce(sum(case when tx.type = 'income' then tx.amount else -tx.amount end)
        filter (where tx.deleted_at is null), 0))::numeric(19,4)::text as ledger
    from wallets w left join transactions tx on tx.wallet_id = w.id
    where w.user_id = ${userId}
    group by w.id`.execute(api.db);
  return rows.rows.filter((row) => row.balance !== row.ledger);
}

async function runSequence(t: Test, seed: number, steps: number) {
  const random = generator(seed);
  const { token, user } = await api.newUser();
  // Some wallets may not go below zero, so refused writes are part of the sequence too.
  const wallets = [
    await fx.wallet(user.id, { balance: '250.5' }),
    await fx.wallet(user.id, { balance: '0' }),
    await fx.wallet(user.id, { type: 'credit_card', balance: '-40.25' }),
  ];
  const transactions: Array<{ id: number; type: string }> = [];
  const transfers: number[] = [];
  const outcomes: Record<string, number> = {};
  const later = () => new Date(Date.now() + 60_000).toISOString();

  for (let step = 0; step < steps; step++) {
    let action = random.pick(['createTx', 'createTx', 'updateTx', 'deleteTx', 'createTransfer', 'updateTransfer', 'deleteTransfer']);
    if ((action === 'updateTx' || action === 'deleteTx') && transactions.length === 0) action = 'createTx';
    if ((action === 'updateTransfer' || action === 'deleteTransfer') && transfers.length === 0) action = 'createTransfer';
    let status = 0;
    switch (action) {
      case 'createTx': {
        const type = random.pick(['income', 'expense']);
        const res = await api.request('POST', '/api/v1/transactions', { token, body: { type, amount: random.amount(), wallet_id: random.pick(wallets) } });
        status = res.status;
        if (status === 201) transactions.push({ id: res.body.data.id, type });
        break;
      }
      case 'updateTx': {
        const tx = random.pick(transactions);
        const body = { amount: random.amount(), wallet_id: random.pick(wallets), updated_at: later() };
        status = (await api.request('PUT', `/api/v1/transactions/${tx.id}?type=${tx.type}`, { token, body })).status;
        break;
      }
      case 'deleteTx': {
        const tx = transactions.splice(random.int(transactions.length), 1)[0];
        status = (await api.request('DELETE', `/api/v1/transactions/${tx.id}`, { token })).status;
        break;
      }
      case 'createTransfer': {
        const from = random.pick(wallets);
        const to = random.pick(wallets.filter((w) => w !== from));
        const res = await api.request('POST', '/api/v1/transfer', { token, body: { amount: random.amount(), from_wallet_id: from, to_wallet_id: to } });
        status = res.status;
        if (status === 201) transfers.push(res.body.data.id);
        break;
      }
      case 'updateTransfer': {
        const id = random.pick(transfers);
        status = (await api.request('PUT', `/api/v1/transfers/${id}`, { token, body: { amount: random.amount(), updated_at: later() } })).status;
        break;
      }
      default: {
        const id = transfers.splice(random.int(transfers.length), 1)[0];
        status = (await api.request('DELETE', `/api/v1/transfers/${id}`, { token })).status;
      }
    }
    t.ok([200, 201, 422].includes(status), `step ${step} ${action} answered ${status}`);
    outcomes[`${action} ${status}`] = (outcomes[`${action} ${status}`] ?? 0) + 1;
    const broken = await ledgerMismatches(user.id);
    if (broken.length > 0) {
      t.fail(`seed ${seed}, step ${step} (${action}): balance ≠ ledger ${JSON.stringify(broken)}`);
      return;
    }
  }
  t.same(await ledgerMismatches(user.id), [], `seed ${seed}: every balance equals its ledger after ${steps} steps`);
  t.ok(Object.keys(outcomes).some((key) => key.endsWith(' 422')), `seed ${seed}: some writes were refused (${JSON.stringify(outcomes)})`);
}

const seeds = process.env.PROPERTY_SEED ? [Number(process.env.PROPERTY_SEED)] : [1, 2, 3, Date.now() % 100000];
for (const seed of seeds) {
  t.test(`random ledger sequence, seed ${seed}`, async (t) => runSequence(t, seed, 60));
}
