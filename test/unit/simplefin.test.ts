// The SimpleFIN adapter against a bridge on 127.0.0.1 written from the protocol: claim once,
// a second claim is 403 (said as possibly compromised), accounts with string amounts and
// pending lines, the bridge's errors kept verbatim, 402/403 said so the user can act, a bridge
// that hangs bounded by the timeout; the secret sealed under the app key.
import t from 'tap';
import { BankBridgeError } from '../../server/bank-adapters.js';
import { openSecret, sealSecret } from '../../server/bank-secrets.js';
import { claimSetupToken, claimUrlOf, SimpleFinAdapter } from '../../server/simplefin.js';
import { fakeAccount, startSimpleFinBridge } from '../helpers/simplefin-bridge.js';

const bridge = await startSimpleFinBridge();
t.teardown(() => bridge.close());

t.test('a setup token is claimed once; the second claim is 403, said as possibly compromised', async (t) => {
  t.equal(claimUrlOf('not base64 !'), undefined);
  t.equal(claimUrlOf(Buffer.from('ftp://x').toString('base64')), undefined);
  const token = bridge.setupToken();
  const url = claimUrlOf(token)!;
  const access = await claimSetupToken(url, 2000);
  t.match(access, /^http:\/\/demo:secret-password@127\.0\.0\.1:\d+\/simplefin$/);
  const again = await claimSetupToken(url, 2000).catch((e) => e);
  t.ok(again instanceof BankBridgeError);
  t.equal(again.status, 403);
  t.match(again.message, /compromised/);
});

t.test('accounts: string amounts exactly, pending lines marked, errors verbatim, window sent in seconds', async (t) => {
  const access = await claimSetupToken(claimUrlOf(bridge.setupToken())!, 2000);
  bridge.errors = ['Connection to First Fake Bank may need attention'];
  bridge.accounts = [
    fakeAccount('acc-1', [
      { id: 't1', posted: Date.UTC(2026, 10, 2) / 1000, amount: '-12.345', description: 'COFFEE', payee: 'Cafe' },
      { id: 't2', posted: 0, amount: '100.10', description: 'PAYROLL', pending: true, transacted_at: Date.UTC(2026, 10, 3) / 1000 },
    ], '1234.56'),
  ];
  const adapter = new SimpleFinAdapter(access, 2000);
  const fetched = await adapter.fetchTransactions({ from: new Date(Date.UTC(2026, 10, 1)), to: new Date(Date.UTC(2026, 10, 28)) });
  t.same(fetched.errors, ['Connection to First Fake Bank may need attention']);
  t.equal(fetched.accounts.length, 1);
  const [account] = fetched.accounts;
  t.match(account, { id: 'acc-1', currency: 'USD', balance: '1234.56', bank: 'First Fake Bank' });
  t.same(account.lines.map((l) => [l.id, l.date, l.amount, l.pending, l.payee]), [
    ['t1', '2026-11-02', '-12.345', false, 'Cafe'],
    ['t2', '2026-11-03', '100.1', true, null],
  ]);
  const query = bridge.requests.at(-1)!;
  t.equal(query.get('start-date'), String(Date.UTC(2026, 10, 1) / 1000));
  t.equal(query.get('pending'), '1');
  const listed = await adapter.listAccounts();
  t.same(listed.accounts[0].lines, [], 'balances only');
  bridge.errors = [];
});

t.test('402 and 403 say what the user can do; a hanging bridge is bounded', async (t) => {
  const adapter = new SimpleFinAdapter(await claimSetupToken(claimUrlOf(bridge.setupToken())!, 2000), 300);
  bridge.failWith = 402;
  t.match(await adapter.listAccounts().catch((e) => e), { status: 402, message: /payment/ });
  bridge.failWith = 403;
  t.match(await adapter.listAccounts().catch((e) => e), { status: 403, message: /new setup token/ });
  bridge.failWith = 'hang';
  const started = Date.now();
  const hung = await adapter.fetchTransactions({ from: new Date(0), to: new Date() }).catch((e) => e);
  t.ok(hung instanceof BankBridgeError);
  t.match(hung.message, /did not answer within 0.3 seconds/);
  t.ok(Date.now() - started < 5000, 'the request was given up, not waited for');
  bridge.failWith = null;
});

t.test('the access URL is sealed under a key derived from the app key', async (t) => {
  const sealed = sealSecret('app-key-one', 'https://u:p@bridge.example/simplefin');
  t.notMatch(sealed, /bridge\.example/);
  t.equal(openSecret('app-key-one', sealed), 'https://u:p@bridge.example/simplefin');
  t.equal(openSecret('app-key-two', sealed), undefined, 'another key opens nothing');
  t.equal(openSecret('app-key-one', sealed.slice(0, -2) + 'AA'), undefined, 'an altered secret opens nothing');
});
