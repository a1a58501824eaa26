// Configuration from the environment: defaults, validation, the persisted app key.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig, parseDuration } from '../server/config.js';

t.test('defaults', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'finance-config-'));
  const config = loadConfig({ DATA_DIR: dataDir });
  t.match(config, {
    port: 8080,
    host: '127.0.0.1',
    databaseUrl: undefined,
    dataDir,
    tokenTtlSeconds: 30 * 86400,
    logLevel: 'info',
    uploadLimitBytes: 10 * 1024 * 1024,
    rateLimitAuth: 10,
    rateLimitApi: 600,
    corsOrigins: '*',
    databaseKeepPlans: true,
  });
  t.equal(config.appKey, readFileSync(path.join(dataDir, 'app.key'), 'utf8').trim(), 'a generated key is kept in DATA_DIR');
  t.equal(loadConfig({ DATA_DIR: dataDir }).appKey, config.appKey, 'and reused on the next start');
  t.equal(loadConfig({ DATA_DIR: dataDir, APP_KEY: 'given' }).appKey, 'given');
});

t.test('every bad value is reported at once', async (t) => {
  const error = t.throws(() =>
    loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', TOKEN_TTL: 'forever', DATABASE_URL: 'mysql://x', DATABASE_KEEP_PLANS: 'sometimes', TRUST_PROXY: 'maybe', RUN_JOBS: 'nope', APP_KEY: 'k' }),
  ) as ConfigError;
  t.ok(error instanceof ConfigError);
  for (const name of ['PORT', 'LOG_LEVEL', 'TOKEN_TTL', 'DATABASE_URL', 'DATABASE_KEEP_PLANS', 'TRUST_PROXY', 'RUN_JOBS']) t.match(error.message, name);
});

t.test('settings', async (t) => {
  const config = loadConfig({ APP_KEY: 'k', RATE_LIMIT_AUTH: '0', CORS_ORIGINS: 'https://a.test, https://b.test', UPLOAD_LIMIT_MB: '2' });
  t.equal(config.rateLimitAuth, 0);
  t.same(config.corsOrigins, ['https://a.test', 'https://b.test']);
  t.equal(config.uploadLimitBytes, 2 * 1024 * 1024);
  t.equal(loadConfig({ APP_KEY: 'k', DATABASE_KEEP_PLANS: 'off' }).databaseKeepPlans, false, 'off behind a transaction-mode pooler');
});

t.test('on/off settings take one spelling, whatever their case', async (t) => {
  for (const [value, on] of [['1', true], ['true', true], ['On', true], ['YES', true], ['0', false], ['false', false], ['off', false], [' No ', false]] as const) {
    const config = loadConfig({ APP_KEY: 'k', TRUST_PROXY: value, RUN_JOBS: value, DATABASE_KEEP_PLANS: value });
    t.same([config.trustProxy, config.runJobs, config.databaseKeepPlans], [on, on, on], `"${value}"`);
  }
  const unset = loadConfig({ APP_KEY: 'k', TRUST_PROXY: '', RUN_JOBS: '' });
  t.same([unset.trustProxy, unset.runJobs], [false, true], 'empty is the default');
});

t.test('durations', async (t) => {
  t.equal(parseDuration('3600'), 3600);
  t.equal(parseDuration('15m'), 900);
  t.equal(parseDuration('12h'), 43200);
  t.equal(parseDuration('30d'), 2592000);
  t.equal(parseDuration('0'), undefined);
  t.equal(parseDuration('soon'), undefined);
});
