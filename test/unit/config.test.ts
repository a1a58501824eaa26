// Configuration from the environment: defaults, validation. (The key kept without APP_KEY: test/app-key.test.ts.)
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { hashPassword, verifyPassword } from '../../domain/passwords.js';
import { ConfigError, loadConfig, parseDuration } from '../../server/config.js';

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
    shutdownDelaySeconds: 5,
    readinessTimeoutMs: 2000,
    compression: true,
    responseCacheBytes: 32 * 1024 * 1024,
  });
  t.equal(config.appKey, undefined, 'without APP_KEY the key is the one kept in the database');
  t.notOk(existsSync(path.join(dataDir, 'app.key')), 'and no key file is written');
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
  t.match(loadConfig({ APP_KEY: 'k', SHUTDOWN_DELAY: '0', READINESS_TIMEOUT_MS: '500' }), { shutdownDelaySeconds: 0, readinessTimeoutMs: 500 });
  t.throws(() => loadConfig({ APP_KEY: 'k', SHUTDOWN_DELAY: 'soon' }), /SHUTDOWN_DELAY/);
  t.equal(loadConfig({ APP_KEY: 'k' }).compileValidators, 'at-start', 'validators compiled while booting unless asked otherwise');
  t.equal(loadConfig({ APP_KEY: 'k', COMPILE_VALIDATORS: 'on-first-use' }).compileValidators, 'on-first-use');
  t.throws(() => loadConfig({ APP_KEY: 'k', COMPILE_VALIDATORS: 'lazy' }), /COMPILE_VALIDATORS/);
  t.equal(loadConfig({ APP_KEY: 'k' }).redisKeyPrefix, 'finance-rl:');
  t.equal(loadConfig({ APP_KEY: 'k', REDIS_KEY_PREFIX: 'eu-1:rl:' }).redisKeyPrefix, 'eu-1:rl:');
  t.throws(() => loadConfig({ APP_KEY: 'k', REDIS_KEY_PREFIX: 'has space' }), /REDIS_KEY_PREFIX/);
  t.match(loadConfig({ APP_KEY: 'k', COMPRESSION: 'off', RESPONSE_CACHE_MB: '0' }), { compression: false, responseCacheBytes: 0 }, 'a proxy compresses; nothing kept');
  t.equal(loadConfig({ APP_KEY: 'k', RESPONSE_CACHE_MB: '8' }).responseCacheBytes, 8 * 1024 * 1024);
  t.throws(() => loadConfig({ APP_KEY: 'k', RESPONSE_CACHE_MB: 'lots' }), /RESPONSE_CACHE_MB/);
  t.throws(() => loadConfig({ APP_KEY: 'k', COMPRESSION: 'gzip' }), /COMPRESSION/);
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

t.test('password hashing: strong by default, cheaper only when configured', async (t) => {
  const production = loadConfig({ APP_KEY: 'k' });
  t.same(production.passwordHashing, { memoryCost: 65536, timeCost: 3, parallelism: 4 }, 'argon2id at 64 MiB, 3 passes, 4 lanes');
  const hash = await hashPassword('correct horse battery', production.passwordHashing);
  t.match(hash, /^\$argon2id\$v=19\$m=65536,p=4,t=3\$/, 'a new hash carries the production parameters');

  const cheap = loadConfig({ APP_KEY: 'k', PASSWORD_HASH_MEMORY_KIB: '1024', PASSWORD_HASH_ITERATIONS: '1', PASSWORD_HASH_PARALLELISM: '1' });
  t.same(cheap.passwordHashing, { memoryCost: 1024, timeCost: 1, parallelism: 1 });
  const cheapHash = await hashPassword('correct horse battery', cheap.passwordHashing);
  t.match(cheapHash, /\$m=1024,p=1,t=1\$/);
  t.ok(await verifyPassword(hash, 'correct horse battery', cheap.passwordHashing), 'a hash is verified with its own parameters, whatever is configured now');
  t.notOk(await verifyPassword(cheapHash, 'wrong horse battery', production.passwordHashing));

  const error = t.throws(() =>
    loadConfig({ APP_KEY: 'k', PASSWORD_HASH_MEMORY_KIB: 'lots', PASSWORD_HASH_ITERATIONS: '0', PASSWORD_HASH_PARALLELISM: '-1', UPLOAD_LIMIT_MB: '0', RATE_LIMIT_API: 'many', LLM_TIMEOUT: '9999' }),
  ) as ConfigError;
  for (const name of ['PASSWORD_HASH_MEMORY_KIB', 'PASSWORD_HASH_ITERATIONS', 'PASSWORD_HASH_PARALLELISM', 'UPLOAD_LIMIT_MB', 'RATE_LIMIT_API', 'LLM_TIMEOUT']) t.match(error.message, name, `${name} is reported, not replaced by its default`);
});

t.test('STORAGE_URL: the local folder by default, the database, or an S3-compatible bucket', async (t) => {
  t.same(loadConfig({ APP_KEY: 'k' }).storage, { kind: 'local' }, 'unset: the data folder');
  t.same(loadConfig({ APP_KEY: 'k', STORAGE_URL: 'database' }).storage, { kind: 'database' });
  t.same(
    loadConfig({ APP_KEY: 'k', STORAGE_URL: 's3://receipts/finance/prod?endpoint=http://127.0.0.1:9000/&region=eu-central-1&force_path_style=true', STORAGE_TIMEOUT_MS: '2500' }).storage,
    { kind: 's3', bucket: 'receipts', prefix: 'finance/prod', endpoint: 'http://127.0.0.1:9000', region: 'eu-central-1', forcePathStyle: true, timeoutMs: 2500 },
  );
  t.match(
    loadConfig({ APP_KEY: 'k', STORAGE_URL: 's3://receipts', AWS_REGION: 'us-west-2' }).storage,
    { kind: 's3', bucket: 'receipts', prefix: '', endpoint: undefined, region: 'us-west-2', forcePathStyle: false, timeoutMs: 5000 },
    "AWS's own endpoint, the region from the standard variable",
  );
  const bad = (url: string) => t.throws(() => loadConfig({ APP_KEY: 'k', STORAGE_URL: url }), /Invalid configuration/, url) as ConfigError;
  t.match(bad('s3:/receipts').message, /STORAGE_URL must be unset \(the local folder\), "database" or s3:\/\//);
  t.match(bad('ftp://files.example').message, /STORAGE_URL must be unset/);
  t.match(bad('postgres://db/files').message, /STORAGE_URL must be unset/, 'the database store is the word "database", not a second URL');
  t.match(bad('s3://Receipts_2024').message, /must name a bucket/);
  t.match(bad('s3://receipts?endpoint=minio:9000').message, /endpoint must be an http\(s\) URL/);
  t.match(bad('s3://receipts?force_path_style=yes').message, /force_path_style must be true or false/);
  t.match(bad('s3://receipts?region=eu-west-1&path_style=true').message, /unknown parameter "path_style"/, 'a typo fails loudly');
  t.throws(() => loadConfig({ APP_KEY: 'k', STORAGE_URL: 's3://receipts', STORAGE_TIMEOUT_MS: '0' }), /STORAGE_TIMEOUT_MS/);
});

t.test('WEBHOOK_SECRET_GRACE: how long a rotated secret still signs', async (t) => {
  t.equal(loadConfig({ APP_KEY: 'k' }).webhooks.secretGraceSeconds, 86_400, '24 hours by default');
  t.equal(loadConfig({ APP_KEY: 'k', WEBHOOK_SECRET_GRACE: '7d' }).webhooks.secretGraceSeconds, 7 * 86_400);
  t.equal(loadConfig({ APP_KEY: 'k', WEBHOOK_SECRET_GRACE: '0' }).webhooks.secretGraceSeconds, 0, '0: the new secret alone signs at once');
  t.throws(() => loadConfig({ APP_KEY: 'k', WEBHOOK_SECRET_GRACE: 'a day' }), /WEBHOOK_SECRET_GRACE must be a duration/);
});

t.test('MCP OAuth: on with MCP, lifetimes as durations', async (t) => {
  t.same(loadConfig({ APP_KEY: 'k' }).mcpOAuth, { enabled: true, accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 30 * 86400 });
  t.same(loadConfig({ APP_KEY: 'k', MCP_OAUTH_ACCESS_TOKEN_TTL: '15m', MCP_OAUTH_REFRESH_TOKEN_TTL: '7d' }).mcpOAuth, { enabled: true, accessTokenTtlSeconds: 900, refreshTokenTtlSeconds: 7 * 86400 });
  t.equal(loadConfig({ APP_KEY: 'k', MCP_OAUTH_ENABLED: '0' }).mcpOAuth.enabled, false);
  t.equal(loadConfig({ APP_KEY: 'k', MCP_ENABLED: '0' }).mcpOAuth.enabled, false, 'not without /mcp');
  const error = t.throws(() => loadConfig({ APP_KEY: 'k', MCP_OAUTH_ACCESS_TOKEN_TTL: 'soon', MCP_OAUTH_REFRESH_TOKEN_TTL: '-1' })) as Error;
  t.match(error.message, /MCP_OAUTH_ACCESS_TOKEN_TTL[\s\S]*MCP_OAUTH_REFRESH_TOKEN_TTL/);
});
