// GET /integrations (the adapter registry) and the public GET /info.
import t from 'tap';
import { startApp } from './helpers/harness.js';
import { IntegrationRegistry, builtInIntegrations } from '../server/integrations.js';

const api = await startApp(t);
const user = await api.newUser();

t.test('integrations list every adapter, in registration order, with its state', async (t) => {
  const res = await api.request('GET', '/api/v1/integrations', { token: user.token });
  t.equal(res.status, 200);
  const items: any[] = res.body.data;
  t.same(
    items.map((i) => i.key),
    ['exchange-rates', 'asset-prices', 'file-storage', 'email', 'language-model', 'document-processor', 'social-login'],
  );
  for (const item of items) {
    t.match(item, { name: String, category: String, feature_key: null, entitled: true, configured: Boolean }, item.key);
    t.ok(item.ui === null || Array.isArray(item.ui.slots), `${item.key} ui`);
  }
  const byKey = Object.fromEntries(items.map((i) => [i.key, i]));
  t.equal(byKey['exchange-rates'].configured, true, 'the offline rates table needs no settings');
  t.equal(byKey['file-storage'].configured, true);
  t.equal(byKey.email.configured, true, 'without SMTP_URL mail goes to the outbox folder');
});

t.test('asset prices are configured only with a price API address', async (t) => {
  const asset = builtInIntegrations().all().find((i) => i.key === 'asset-prices')!;
  t.equal(asset.isConfigured({ ...api.config, assetPricesUrl: '' }), false);
  t.equal(asset.isConfigured({ ...api.config, assetPricesUrl: 'https://prices.example' }), true);
});

t.test('registering a key again replaces the entry in its place', async (t) => {
  const base = { category: 'x', description: null, icon: null, featureKey: null, isConfigured: () => true, ui: null };
  const registry = new IntegrationRegistry()
    .register({ ...base, key: 'a', name: 'A' })
    .register({ ...base, key: 'b', name: 'B' })
    .register({ ...base, key: 'a', name: 'A2' });
  t.same(registry.all().map((i) => `${i.key}:${i.name}`), ['a:A2', 'b:B']);
});

t.test('integrations need a token', async (t) => {
  t.equal((await api.request('GET', '/api/v1/integrations')).status, 401);
});

t.test('info is public and says what this server is', async (t) => {
  for (const url of ['/api/info', '/api/v1/info']) {
    const res = await api.request('GET', url);
    t.equal(res.status, 200, url);
    t.match(res.body.data, { name: 'finance-service', version: '1.1.2', database: process.env.DATABASE_URL ? 'postgresql' : 'embedded' });
    const { total, implemented } = res.body.data.operations;
    t.ok(implemented > 0 && implemented <= total, `${implemented} of ${total}`);
  }
});
