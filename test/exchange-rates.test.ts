// Exchange rates: the HTTP and offline providers, and the rate service's layers (manual rate,
// stored rate within its TTL, provider, stored reverse rate, unavailable) over GET /exchange-rates.
import t from 'tap';
import { REFERENCE_RATES_DATE } from '../domain/reference-rates.js';
import { Decimal } from '../domain/money.js';
import { ConfigError, loadConfig } from '../server/config.js';
import { HttpRatesProvider, OfflineRatesProvider, ProviderUnavailableError, type RatesProvider } from '../server/rate-providers.js';
import { createRateService } from '../server/rates.js';
import { startFakeProvider, type FakeRequest } from './helpers/fake-provider.js';
import { startApp } from './helpers/harness.js';

const fake = await startFakeProvider(t);
/** What the fake rates API knows: units per 1 base. */
const upstream: Record<string, Record<string, number>> = {
  EUR: { USD: 1.08, GBP: 0.85 },
  CHF: { EUR: 1.05 },
  XAF: { EUR: 0.0015244 },
};
let upstreamDown = false;
const ratesApi = (request: FakeRequest) => {
  if (upstreamDown) return { status: 503, json: { error: 'down' } };
  const base = request.query.get('base') ?? '';
  const rates = upstream[base];
  return rates ? { json: { base, date: '2026-11-20', rates }, delayMs: base === 'CHF' ? 100 : 0 } : { status: 404, json: { error: 'unknown base' } };
};
fake.answer(ratesApi);
const callsFor = (base: string) => fake.requests.filter((r) => r.path === '/latest' && r.query.get('base') === base).length;

const api = await startApp(t, { ratesProviderUrl: fake.url, ratesProviderKey: 'secret-key' });
const owner = await api.newUser();
const get = (query: string, token = owner.token) => api.request('GET', `/api/v1/exchange-rates?${query}`, { token });

t.test('HTTP provider adapter: success, 404, timeout, 5xx, malformed body', async (t) => {
  const adapterFake = await startFakeProvider(t);
  const provider = new HttpRatesProvider(adapterFake.url, 'k1', 200);

  adapterFake.answer(() => ({ json: { base: 'EUR', date: '2026-11-20', rates: { USD: 1.0842, GBP: 0.8581, bad: 2, ZZZ: -1 } } }));
  const quote = await provider.latest('EUR');
  t.equal(quote?.date, '2026-11-20');
  t.same(Object.fromEntries([...quote!.rates].map(([c, r]) => [c, r.toString()])), { USD: '1.0842', GBP: '0.8581' }, 'invalid codes and rates are dropped');
  t.equal(adapterFake.requests[0].query.get('base'), 'EUR');
  t.equal(adapterFake.requests[0].headers.authorization, 'Bearer k1', 'the key is sent as a bearer token');

  adapterFake.answer(() => ({ status: 404, json: {} }));
  t.equal(await provider.latest('XYZ'), undefined, 'an unknown base is no rates, not a failure');

  const failures: Array<[string, () => { status?: number; json?: unknown; raw?: string; delayMs?: number }, RegExp]> = [
    ['timeout', () => ({ json: { base: 'EUR', rates: { USD: 1 } }, delayMs: 1000 }), /within 200 ms/],
    ['5xx', () => ({ status: 502, json: {} }), /answered 502/],
    ['malformed JSON', () => ({ raw: '{"base": "EUR", "rates": ' }), /not valid JSON/],
    ['wrong shape', () => ({ json: { base: 'EUR', rates: [1, 2] } }), /no usable rates/],
    ['another base', () => ({ json: { base: 'USD', rates: { EUR: 0.9 } } }), /no usable rates/],
  ];
  for (const [name, answer, message] of failures) {
    adapterFake.answer(answer);
    await t.rejects(provider.latest('EUR'), message, name);
    await t.rejects(provider.latest('EUR'), ProviderUnavailableError, `${name} is ProviderUnavailableError`);
  }
  await t.rejects(new HttpRatesProvider('http://127.0.0.1:1', undefined, 200).latest('EUR'), /cannot be reached/, 'a closed port');
});

t.test('offline provider: the bundled dated table, cross rates derived', async (t) => {
  const provider = new OfflineRatesProvider();
  const quote = await provider.latest('EUR');
  t.equal(quote?.date, REFERENCE_RATES_DATE);
  t.ok(quote!.rates.get('USD')!.greaterThan(0.5) && quote!.rates.get('USD')!.lessThan(2));
  t.notOk(quote!.rates.has('EUR'), 'no rate to itself');
  t.equal(await provider.latest('XYZ'), undefined);
});

t.test('rates from the provider are stored and then served from the database', async (t) => {
  const res = await get('base=eur&targets=usd,GBP,eur,usd');
  t.equal(res.status, 200);
  t.same(res.body.data, { base: 'EUR', rates: { USD: 1.08, GBP: 0.85, EUR: 1 }, unavailable: [] });
  const stored = await api.db.selectFrom('exchange_rates').select(['target_currency', 'rate', 'source']).where('base_currency', '=', 'EUR').orderBy('target_currency').execute();
  t.same(stored, [
    { target_currency: 'GBP', rate: '0.8500000000', source: 'remote' },
    { target_currency: 'USD', rate: '1.0800000000', source: 'remote' },
  ]);
  const calls = callsFor('EUR');
  const again = await get('base=EUR&target=GBP');
  t.same(again.body.data.rates, { GBP: 0.85 });
  t.equal(callsFor('EUR'), calls, 'no second upstream call within the TTL');
});

t.test('concurrent requests for one base make one upstream call', async (t) => {
  const answers = await Promise.all([1, 2, 3, 4, 5].map(() => get('base=CHF&target=EUR')));
  t.same(answers.map((r) => r.body.data.rates.EUR), [1.05, 1.05, 1.05, 1.05, 1.05]);
  t.equal(callsFor('CHF'), 1);
});

t.test('manual rates override stored and provider rates, both ways', async (t) => {
  const user = await api.newUser();
  const saved = await api.request('POST', '/api/v1/configurations', {
    token: user.token,
    body: { key: 'manual-exchange-rates', type: 'string', value: '{"EUR-USD": 1.2, "GBP-EUR": 1.25}' },
  });
  t.equal(saved.status, 201);
  const res = await get('base=EUR&targets=USD,GBP', user.token);
  t.same(res.body.data.rates, { USD: 1.2, GBP: 0.8 }, 'EUR-USD as given, EUR→GBP as 1 / GBP-EUR');
  const service = api.app.services.rates;
  t.equal((await service.rate(api.db, user.user.id, 'USD', 'EUR', new Date()))?.toFixed(6), '0.833333');
  t.equal((await service.rate(api.db, user.user.id, 'EUR', 'USD', new Date()))?.toString(), '1.2');
  t.equal((await service.rate(api.db, owner.user.id, 'EUR', 'USD', new Date()))?.toString(), '1.08', "another user's manual rates do not apply");
  t.equal((await service.rate(api.db, user.user.id, 'JPY', 'jpy', new Date()))?.toString(), '1', 'the same currency is 1');
});

t.test('provider down: a stored reverse rate of any age is used; a stale direct rate is not; the rest is unavailable', async (t) => {
  const old = new Date('2020-01-01T00:00:00Z');
  await api.db
    .insertInto('exchange_rates')
    .values([
      { base_currency: 'NOK', target_currency: 'SEK', rate: '0.5', fetched_at: old },
      { base_currency: 'SEK', target_currency: 'DKK', rate: '0.65', fetched_at: old },
    ])
    .execute();
  upstreamDown = true;
  t.teardown(() => {
    upstreamDown = false;
  });
  const res = await get('base=SEK&targets=NOK,DKK,SEK');
  t.equal(res.status, 200, 'an unreachable provider is not an error');
  t.same(res.body.data, { base: 'SEK', rates: { NOK: 2, SEK: 1 }, unavailable: ['DKK'] });
});

t.test('a currency nobody knows is unavailable, never 1; a fetched reverse quote fills a gap', async (t) => {
  const res = await get('base=EUR&targets=XYZ,XAF');
  t.equal(res.status, 200);
  t.same(res.body.data.unavailable, ['XYZ']);
  t.notOk('XYZ' in res.body.data.rates);
  t.ok(Math.abs(res.body.data.rates.XAF - 656) < 1, 'EUR→XAF as 1 / (XAF→EUR)');
  const { rates, unavailable } = await api.app.services.rates.rates(api.db, owner.user.id, 'EUR', ['xyz'], new Date());
  t.equal(rates.size, 0);
  t.same(unavailable, ['XYZ']);
  const odd = await api.app.services.rates.rates(api.db, owner.user.id, 'EURO', ['USD'], new Date());
  t.same(odd.unavailable, ['USD'], 'a base that is no currency code is not sent upstream, nor an error');
});

t.test('the offline default answers without any network', async (t) => {
  const offline = await startApp(t);
  const user = await offline.newUser();
  const res = await offline.request('GET', '/api/v1/exchange-rates?base=USD&targets=EUR,JPY,XYZ', { token: user.token });
  t.equal(res.status, 200);
  t.same(res.body.data.rates, { EUR: 0.9626, JPY: 157.2 });
  t.same(res.body.data.unavailable, ['XYZ']);
  const stored = await offline.db.selectFrom('exchange_rates').select('id').execute();
  t.equal(stored.length, 0, 'the bundled table is not copied into the database');
});

t.test('bad queries are 422 keyed by field; no token is 401', async (t) => {
  const cases: Array<[string, string]> = [
    ['targets=USD', 'base'],
    ['base=EURO&target=USD', 'base'],
    ['base=EUR', 'targets'],
    ['base=EUR&targets=US1', 'targets'],
    ['base=EUR&target=U', 'target'],
  ];
  for (const [query, field] of cases) {
    const res = await get(query);
    t.equal(res.status, 422, query);
    t.ok(Object.keys(res.body.errors ?? {}).some((key) => key === field || key.startsWith(`${field}.`)), `${query} → ${field}`);
  }
  const anonymous = await api.request('GET', '/api/v1/exchange-rates?base=EUR&target=USD');
  t.equal(anonymous.status, 401);
});

t.test('the TTL: a stored rate is trusted until it expires; a failing provider is not retried at once', async (t) => {
  let calls = 0;
  let failing = false;
  const provider: RatesProvider = {
    name: 'remote',
    storesRates: true,
    async latest(base) {
      calls += 1;
      if (failing) throw new ProviderUnavailableError('stub', 'down');
      return { base, date: null, rates: new Map([['ISK', new Decimal(calls * 100)]]) };
    },
  };
  const service = createRateService({ provider, ttlSeconds: 60, retryAfterFailureMs: 30_000 });
  const start = new Date('2030-01-01T00:00:00Z');
  const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);
  t.equal((await service.rate(api.db, owner.user.id, 'HUF', 'ISK', start))?.toString(), '100');
  t.equal((await service.rate(api.db, owner.user.id, 'HUF', 'ISK', at(59)))?.toString(), '100', 'within the TTL');
  t.equal(calls, 1);
  t.equal((await service.rate(api.db, owner.user.id, 'HUF', 'ISK', at(61)))?.toString(), '200', 'fetched again after the TTL');
  failing = true;
  t.equal(await service.rate(api.db, owner.user.id, 'HUF', 'ISK', at(200)), undefined, 'an expired direct rate is not used');
  t.equal(await service.rate(api.db, owner.user.id, 'HUF', 'ISK', at(210)), undefined);
  t.equal(calls, 3, 'no second call within the retry delay');
});

t.test('configuration of the providers', async (t) => {
  const defaults = loadConfig({ APP_KEY: 'k' });
  t.match(defaults, { ratesProviderUrl: undefined, ratesProviderKey: undefined, ratesTtlSeconds: 3600, assetPricesUrl: 'https://api.coingecko.com/api/v3' });
  const set = loadConfig({ APP_KEY: 'k', RATES_PROVIDER_URL: 'https://rates.test/v1/', RATES_PROVIDER_KEY: 's', RATES_TTL: '30m', ASSET_PRICES_URL: 'http://127.0.0.1:9/api/' });
  t.match(set, { ratesProviderUrl: 'https://rates.test/v1', ratesProviderKey: 's', ratesTtlSeconds: 1800, assetPricesUrl: 'http://127.0.0.1:9/api' });
  const error = t.throws(() => loadConfig({ APP_KEY: 'k', RATES_PROVIDER_URL: 'ftp://x', RATES_TTL: 'soon', ASSET_PRICES_URL: 'coingecko' })) as ConfigError;
  for (const name of ['RATES_PROVIDER_URL', 'RATES_TTL', 'ASSET_PRICES_URL']) t.match(error.message, name);
});
