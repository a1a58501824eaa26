// Rate limits shared through Redis: two app instances (as two processes would be) count
// against one limit. Needs Redis (REDIS_URL, default redis://127.0.0.1:6379; CI starts it).
import { randomInt, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import t from 'tap';
import { startApp } from './helpers/harness.js';

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

if (!(await redisReachable())) {
  t.test(`Redis is not reachable at ${redisUrl}`, { skip: true }, async () => {});
} else {
  t.test('two instances share the per-IP and per-e-mail counters', async (t) => {
    const first = await startApp(t, { rateLimitAuth: 3, redisUrl });
    const second = await startApp(t, { rateLimitAuth: 3, redisUrl });
    // Fresh keys on every run, so earlier runs within the minute do not count.
    const ip = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const login = (app: typeof first, remoteAddress: string, email: string) =>
      app.app.inject({ method: 'POST', url: '/api/login', remoteAddress, payload: { email, password: 'wrong-password' } });

    const email = `limited-${randomUUID()}@example.test`;
    t.equal((await login(first, ip, email)).statusCode, 401);
    t.equal((await login(second, ip, email)).statusCode, 401);
    t.equal((await login(first, ip, email)).statusCode, 401);
    const refused = await login(second, ip, `other-${randomUUID()}@example.test`);
    t.equal(refused.statusCode, 429, 'the fourth request from this IP is refused, whichever instance gets it');
    t.ok(Number(refused.headers['retry-after']) > 0);

    const elsewhere = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    t.equal((await login(second, elsewhere, email)).statusCode, 429, 'the same e-mail from another IP is refused too');
  });
}
