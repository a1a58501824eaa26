// What rules do beyond filling fields: `transfer_to_wallet` books an imported line as a transfer
// (both directions), pairs the other wallet's counter-line with it instead of booking a second
// one, and imports a line that cannot be a transfer as it is, with the reason; "apply to
// existing" judges the budgets whose spending it moved, once per batch.
import t from 'tap';
import { analyzeImportJob } from '../jobs/analyze-import.js';
import { confirmImportJob } from '../jobs/confirm-import.js';
import { runApplication } from '../jobs/apply-rule.js';
import { startApp } from './helpers/harness.js';
import { ledgerFixtures, multipart } from './helpers/transaction-fixtures.js';

const api = await startApp(t);
const fx = ledgerFixtures(api);
const jobCtx = () => ({ db: api.db, services: api.app.services, log: api.app.log });

type Line = [date: string, counterparty: string, description: string, amount: string];

/** A German bank export of these lines, analysed; its session id. */
async function analysed(token: string, lines: Line[]): Promise<number> {
  const rows = lines.map(([date, counterparty, description, amount]) => `${date};${description};${amount};${counterparty}`);
  const csv = ['Buchungstag;Verwendungszweck;Betrag;Name Zahlungsbeteiligter', ...rows].join('\n');
  const { payload, headers } = multipart([], [{ field: 'file', filename: 'giro.csv', contentType: 'text/csv', data: Buffer.from(csv) }]);
  const uploaded = await api.request('POST', '/api/v1/import/analyze', { token, payload, headers });
  if (uploaded.status !== 201) throw new Error(JSON.stringify(uploaded.body));
  await analyzeImportJob.run(jobCtx(), { sessionId: uploaded.body.data.id });
  return uploaded.body.data.id;
}

/** The lines confirmed item by item into `wallet`; the outcomes. */
async function confirmInto(token: string, wallet: number, lines: Line[]) {
  const session = await analysed(token, lines);
  const accepted = lines.map((_, index) => ({ index, wallet_id: wallet, accept_duplicate: true }));
  const res = await api.request('POST', '/api/v1/import/confirm', { token, body: { session_id: session, accepted } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.data.results as Array<{ status: string; transaction_id: number | null; error: string | null }>;
}

async function ledger() {
  const user = await api.newUser();
  const giro = await fx.wallet(user.user.id, { balance: '1000', currency: 'USD' });
  const savings = await fx.wallet(user.user.id, { balance: '5000', currency: 'USD' });
  const rule = (name: string, counterparty: string, wallet: number) =>
    api.request('POST', '/api/v1/rules', { token: user.token, body: { name, conditions: [{ field: 'counterparty', operator: 'contains', value: counterparty }], actions: [{ type: 'transfer_to_wallet', wallet_id: wallet }] } });
  return { user, giro, savings, rule };
}

const legOf = (id: number) => api.db.selectFrom('transactions').select(['id', 'transfer_id', 'wallet_id', 'type', 'amount']).where('id', '=', id).executeTakeFirstOrThrow();
const transfersOf = (userId: number) => api.db.selectFrom('transfers').selectAll().where('user_id', '=', userId).where('deleted_at', 'is', null).execute();

t.test('an expense line becomes a transfer to the rule\'s wallet; the counter-line on that wallet is paired, not booked again', async (t) => {
  const { user, giro, savings, rule } = await ledger();
  t.equal((await rule('To savings', 'sparkonto', savings)).status, 201);
  t.equal((await rule('From giro', 'girokonto', giro)).status, 201, 'the mirror rule, for the other statement');

  const [out] = await confirmInto(user.token, giro, [['02.03.2026', 'Sparkonto Max', 'Umbuchung', '-200,00']]);
  t.equal(out.status, 'created', JSON.stringify(out));
  const leg = await legOf(out.transaction_id!);
  t.not(leg.transfer_id, null, 'the line is a leg of a transfer');
  t.match(leg, { wallet_id: giro, type: 'expense' });
  const [transfer] = await transfersOf(user.user.id);
  t.match(transfer, { from_wallet_id: giro, to_wallet_id: savings });
  t.equal(Number(transfer.amount), 200);
  t.equal(Number(await fx.balance(giro)), 800);
  t.equal(Number(await fx.balance(savings)), 5200);

  const [counter] = await confirmInto(user.token, savings, [['04.03.2026', 'Girokonto Max', 'Umbuchung', '200,00']]);
  t.equal(counter.status, 'already_imported', 'the counter-line is the transfer already booked');
  const income = await legOf(counter.transaction_id!);
  t.equal(income.transfer_id, transfer.id);
  t.match(income, { wallet_id: savings, type: 'income' });
  t.equal((await transfersOf(user.user.id)).length, 1, 'no second transfer');
  t.equal(Number(await fx.balance(savings)), 5200, 'nothing moved twice');

  const [again] = await confirmInto(user.token, savings, [['04.03.2026', 'Girokonto Max', 'Umbuchung', '200,00']]);
  t.equal(again.status, 'created', 'a transfer already paired with a line is not paired again');
  t.equal((await transfersOf(user.user.id)).length, 2);
});

t.test('one rule for both statements: the line on its own wallet only pairs', async (t) => {
  const { user, giro, savings, rule } = await ledger();
  t.equal((await rule('Between my accounts', 'umbuchung max', savings)).status, 201);
  const [out] = await confirmInto(user.token, giro, [['10.03.2026', 'Umbuchung Max', 'Sparen', '-75,00']]);
  t.equal(out.status, 'created');
  const [counter] = await confirmInto(user.token, savings, [['11.03.2026', 'Umbuchung Max', 'Sparen', '75,00']]);
  t.equal(counter.status, 'already_imported', 'the same rule pairs the counter-line on its own wallet');
  t.equal((await transfersOf(user.user.id)).length, 1);
  const [alone] = await confirmInto(user.token, savings, [['20.03.2026', 'Umbuchung Max', 'Sparen', '75,00']]);
  t.equal(alone.status, 'created', 'nothing to pair: imported as it is');
  const plain = await api.db.selectFrom('transactions').select(['transfer_id', 'metadata']).where('id', '=', alone.transaction_id!).executeTakeFirstOrThrow();
  t.equal(plain.transfer_id, null);
  t.match(plain.metadata, { transfer_not_booked: /own wallet/ });
});

t.test('an income line becomes a transfer from the rule\'s wallet (whole-session confirm); one that cannot be a transfer is imported with the reason', async (t) => {
  const { user, savings, rule } = await ledger();
  const main = await fx.mainWallet(user.user.id);
  await fx.setBalance(main, '100');
  const euros = await fx.wallet(user.user.id, { balance: '100', currency: 'EUR' });
  t.equal((await rule('From savings', 'tagesgeld', savings)).status, 201);
  t.equal((await rule('To the euro account', 'euro konto', euros)).status, 201);
  const session = await analysed(user.token, [
    ['05.03.2026', 'Tagesgeld Max', 'Rueckbuchung', '50,00'],
    ['06.03.2026', 'Euro Konto', 'Umbuchung', '-20,00'],
  ]);
  const review = (await api.request('GET', `/api/v1/import/sessions/${session}`, { token: user.token })).body.data.suggestions;
  t.match(review, [{ rules: [{ name: 'From savings' }], rule_changes: { transfer_wallet_id: savings } }, { rule_changes: { transfer_wallet_id: euros } }], 'the review shows the transfer a rule will book');
  const started = await api.request('POST', '/api/v1/import/confirm', { token: user.token, body: { session_id: session, accept_all: true, auto_create_wallets: true } });
  t.equal(started.status, 202, JSON.stringify(started.body));
  await confirmImportJob.run(jobCtx(), { sessionId: session });
  const suggestions = await api.db.selectFrom('import_suggestions').select(['status', 'transaction_id', 'wallet_id']).where('import_session_id', '=', session).orderBy('suggestion_index').execute();
  t.match(suggestions, [{ status: 'confirmed' }, { status: 'confirmed' }]);
  const income = await legOf(suggestions[0].transaction_id!);
  t.match(income, { type: 'income' });
  const [transfer] = await transfersOf(user.user.id);
  t.match(transfer, { from_wallet_id: savings, to_wallet_id: income.wallet_id, id: income.transfer_id });
  t.equal(Number(await fx.balance(savings)), 4950);

  const plain = await api.db.selectFrom('transactions').select(['transfer_id', 'type', 'metadata']).where('id', '=', suggestions[1].transaction_id!).executeTakeFirstOrThrow();
  t.equal(plain.transfer_id, null, 'between currencies without a rate: not a transfer');
  t.equal(plain.type, 'expense', 'imported as it is, never lost');
  t.match(plain.metadata, { rules: [{ name: 'To the euro account' }], transfer_not_booked: /exchange rate/ });
  t.equal((await transfersOf(user.user.id)).length, 1);
});

t.test('a transaction made through the API is not turned into a transfer', async (t) => {
  const { user, giro, savings } = await ledger();
  const rule = await api.request('POST', '/api/v1/rules', { token: user.token, body: { name: 'Savings', conditions: [{ field: 'description', operator: 'contains', value: 'savings' }], actions: [{ type: 'transfer_to_wallet', wallet_id: savings }] } });
  t.equal(rule.status, 201);
  const made = await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount: 10, wallet_id: giro, description: 'to savings' } });
  t.equal(made.status, 201);
  t.equal(made.body.data.transfer_id ?? null, null);
  t.match(made.body.data.metadata, { rules: [{ name: 'Savings' }] }, 'the rule matched');
  t.equal((await transfersOf(user.user.id)).length, 0);
});

t.test('"apply to existing" judges the budgets whose spending it moved, once per batch', async (t) => {
  const user = await api.newUser();
  const wallet = await fx.wallet(user.user.id, { balance: '100000' });
  const food = await fx.category(user.user.id);
  const budget = await api.request('POST', '/api/v1/budgets', {
    token: user.token,
    body: { name: 'Food', amount: 100, currency: 'USD', period_type: 'monthly', start_date: '2026-01-01', forecast_alerts_enabled: false, targets: [{ type: 'category', id: food }] },
  });
  t.equal(budget.status, 201, JSON.stringify(budget.body));
  for (const amount of [40, 55]) {
    t.equal((await api.request('POST', '/api/v1/transactions', { token: user.token, body: { type: 'expense', amount, wallet_id: wallet, description: 'Bakery' } })).status, 201);
  }
  const alerts = () => api.db.selectFrom('budget_alerts').select(['kind']).where('budget_id', '=', budget.body.data.id).execute();
  t.same(await alerts(), [], 'nothing in the budget yet');
  const rule = await api.request('POST', '/api/v1/rules', { token: user.token, body: { name: 'Bakery is food', conditions: [{ field: 'description', operator: 'is', value: 'bakery' }], actions: [{ type: 'set_categories', category_ids: [food] }] } });
  const started = await api.request('POST', `/api/v1/rules/${rule.body.data.id}/apply`, { token: user.token });
  t.equal(started.status, 202);
  await runApplication(jobCtx(), started.body.data.id);
  t.match((await api.request('GET', `/api/v1/rules/${rule.body.data.id}/apply`, { token: user.token })).body.data, { state: 'done', changed: 2 });
  t.same((await alerts()).map((a) => a.kind), ['threshold'], 'the budget filed to 95% records its threshold alert');
  const notes = await api.db.selectFrom('notifications').select('title').where('user_id', '=', user.user.id).execute();
  t.same(notes.map((n) => n.title), ['Budget near limit: Food'], 'one alert for the batch, not one per transaction');
});
