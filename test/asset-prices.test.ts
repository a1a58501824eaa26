// Asset prices: the CoinGecko-compatible adapter against a fake provider, and the two
// operations (search, prices with a short cache and stale stored prices when unreachable).
import t from 'tap';
import { CoinGeckoClient } from '../server/asset-prices.js';
import { ProviderUnavailableError } from '../server/rate-providers.js';
import { startFakeProvider, type FakeAnswer, type FakeRequest } from './helpers/fake-provider.js';
import { startApp } from './helpers/harness.js';

const coins = [
  { id: 'bitcoin', name: 'Bitcoin', symbol: 'btc' },
  { id: '', name: 'Nameless', symbol: 'x' },
  ...Array.from({ length: 25 }, (_, i) => ({ id: `bitcoin-clone-${i}`, name: `Clone ${i}`, symbol: `bc${i}` })),
];
const quotes: Record<string, Record<string, number>> = {
  bitcoin: { usd: 64250.12, eur: 59000.5 },
  ethereum: { usd: 3120.5 },
  'tiny-coin': { usd: 0.00000123 },
};
let providerDown = false;
const coinGecko = (request: FakeRequest): FakeAnswer => {
  if (providerDown) return { status: 500, json: { error: 'down' } };
  if (request.path === '/search') return { json: { coins: request.query.get('query') === 'none' ? [] : coins, exchanges: [] } };
  if (request.path === '/simple/price') {
    const vs = request.query.get('vs_currencies') ?? '';
    const ids = (request.query.get('ids') ?? '').split(',');
    return { json: Object.fromEntries(ids.filter((id) => quotes[id]?.[vs] !== undefined).map((id) => [id, { [vs]: quotes[id][vs] }])) };
  }
  return { status: 404, json: {} };
};

const fake = await startFakeProvider(t);
fake.answer(coinGecko);
let clock = new Date('2026-11-21T08:00:00.000Z');
const api = await startApp(t, { assetPricesUrl: fake.url, now: () => clock });
const { token } = await api.newUser();
const get = (url: string, withToken = true) => api.request('GET', `/api/v1/${url}`, withToken ? { token } : {});
const priceCalls = () => fake.requests.filter((r) => r.path === '/simple/price');

t.test('adapter: search and prices, then timeout, 5xx and malformed bodies', async (t) => {
  const adapterFake = await startFakeProvider(t);
  const client = new CoinGeckoClient(adapterFake.url, 200);
  adapterFake.answer(coinGecko);
  const found = await client.search('bitc');
  t.equal(found.length, 20, 'at most 20 matches');
  t.same(found[0], { id: 'bitcoin', name: 'Bitcoin', symbol: 'BTC' });
  t.notOk(found.some((coin) => coin.id === ''), 'matches without an id are dropped');
  const prices = await client.prices(['bitcoin', 'ethereum', 'unknown'], 'usd');
  t.same(Object.fromEntries([...prices].map(([id, p]) => [id, p.toString()])), { bitcoin: '64250.12', ethereum: '3120.5' });

  const failures: Array<[string, FakeAnswer, RegExp]> = [
    ['timeout', { json: { coins: [] }, delayMs: 1000 }, /within 200 ms/],
    ['5xx', { status: 503, json: {} }, /answered 503/],
    ['malformed JSON', { raw: '<html>oops' }, /not valid JSON/],
  ];
  for (const [name, answer, message] of failures) {
    adapterFake.answer(() => answer);
    await t.rejects(client.search('bitc'), message, `search: ${name}`);
    await t.rejects(client.prices(['bitcoin'], 'usd'), ProviderUnavailableError, `prices: ${name}`);
  }
  adapterFake.answer(() => ({ json: { unexpected: true } }));
  await t.rejects(client.search('bitc'), /no coin list/, 'search: wrong shape');
  adapterFake.answer(() => ({ json: [1, 2] }));
  await t.rejects(client.prices(['bitcoin'], 'usd'), /not an object/, 'prices: wrong shape');
});

t.test('GET /asset-prices/search', async (t) => {
  // `q` is the reference's parameter
  const res = await get('asset-prices/search?q=bitc');
  t.equal(res.status, 200);
  t.equal(res.body.data.length, 20);
  t.same(res.body.data[0], { id: 'bitcoin', name: 'Bitcoin', symbol: 'BTC' });
  const none = await get('asset-prices/search?q=none');
  t.same(none.body.data, []);
  t.same((await get('asset-prices/search?query=bitc')).body.data, res.body.data, '`query` is the same parameter');
  t.same((await get('asset-prices/search?q=none&query=bitc')).body.data, [], '`q` wins');
  // `query` is deprecated in the spec (x-deprecation 2026-11-28): an answer to a request sending it says so
  const old = await get('asset-prices/search?query=bitc');
  t.equal(old.headers.deprecation, `@${Date.UTC(2026, 10, 28) / 1000}`, 'Deprecation (RFC 9745): the date');
  t.equal(old.headers.link, '</docs#/Holdings/searchAssets>; rel="deprecation"; type="text/html"');
  t.equal(old.headers.sunset, undefined, 'no Sunset: the spec sets no date');
  t.equal(res.headers.deprecation, undefined, 'not when only `q` is sent');
  t.equal(res.headers.link, undefined);

  const missing = await get('asset-prices/search');
  t.equal(missing.status, 422);
  t.same(Object.keys(missing.body.errors), ['q']);
  t.equal((await get('asset-prices/search?query=bitc', false)).status, 401);

  providerDown = true;
  t.teardown(() => {
    providerDown = false;
  });
  const down = await get('asset-prices/search?query=bitc');
  t.equal(down.status, 503);
  t.match(down.body, { success: false, message: /asset price provider cannot be reached/ });
});

t.test('GET /asset-prices: prices stored, a short cache, then stale stored prices when unreachable', async (t) => {
  const res = await get('asset-prices?ids=bitcoin,ethereum,bitcoin,nope,tiny-coin&vs_currency=USD');
  t.equal(res.status, 200);
  t.same(res.body.data, { vs_currency: 'usd', prices: { bitcoin: 64250.12, ethereum: 3120.5, 'tiny-coin': 0.00000123 }, stale: false, unavailable: ['nope'] });
  const stored = await api.db.selectFrom('asset_prices').select(['asset_id', 'price']).where('vs_currency', '=', 'usd').orderBy('asset_id').execute();
  t.same(stored.map((r) => [r.asset_id, r.price]), [['bitcoin', '64250.1200000000'], ['ethereum', '3120.5000000000'], ['tiny-coin', '0.0000012300']]);

  const calls = priceCalls().length;
  const cached = await get('asset-prices?ids=bitcoin,ethereum');
  t.same(cached.body.data.prices, { bitcoin: 64250.12, ethereum: 3120.5 });
  t.equal(priceCalls().length, calls, 'served from the stored prices within the short cache');

  const defaultCurrency = await get('asset-prices?ids=bitcoin&vs_currency=eur');
  t.same(defaultCurrency.body.data.prices, { bitcoin: 59000.5 });
  t.equal((await get('asset-prices?ids=ethereum')).body.data.vs_currency, 'usd', 'usd by default');

  clock = new Date(clock.getTime() + 10 * 60_000);
  providerDown = true;
  t.teardown(() => {
    providerDown = false;
  });
  const stale = await get('asset-prices?ids=bitcoin,solana');
  t.equal(stale.status, 200);
  t.same(stale.body.data, { vs_currency: 'usd', prices: { bitcoin: 64250.12 }, stale: true, unavailable: ['solana'] });
  t.match(stale.body.message, /last stored prices/);

  const nothingStored = await get('asset-prices?ids=solana');
  t.equal(nothingStored.status, 503);
  t.match(nothingStored.body.message, /asset price provider cannot be reached/);
});

t.test('GET /asset-prices: 422 on a bad query, 401 without a token', async (t) => {
  for (const [query, field] of [
    ['vs_currency=usd', 'ids'],
    ['ids=bitcoin&vs_currency=dollars', 'vs_currency'],
  ]) {
    const res = await get(`asset-prices?${query}`);
    t.equal(res.status, 422, query);
    t.ok(Object.keys(res.body.errors).some((key) => key === field || key.startsWith(`${field}.`)), `${query} → ${field}`);
  }
  t.equal((await get('asset-prices?ids=bitcoin', false)).status, 401);
});
