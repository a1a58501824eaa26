// Child process of scripts/bench.ts: starts the full service and, on the same database, a
// bare fastify route that runs the same SQL as GET /api/v1/user with no validation, no auth
// and no envelope code. Prints one JSON line with their addresses and a token.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { decodeJwt } from 'jose';
import { openDatabase } from '../../db/connection.js';
import { migrateToLatest } from '../../db/migrate.js';
import { findLiveTokenWithUser } from '../../db/tokens.js';
import { avatarOf } from '../../db/users.js';
import { buildApp } from '../../server/app.js';
import { loadConfig } from '../../server/config.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'finance-bench-'));
const config = { ...loadConfig({ ...process.env, DATA_DIR: dataDir }), rateLimitAuth: 0, rateLimitApi: 0, logLevel: 'silent' as const };
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : dataDir });
await migrateToLatest(database.db);

const app = await buildApp({ config, database, logger: false });
const registered = await app.inject({
  method: 'POST',
  url: '/api/register',
  payload: { email: `bench-${Date.now()}@example.test`, password: 'benchmark-password', first_name: 'Bench' },
});
const token = registered.json().data.token as string;
const jti = decodeJwt(token).jti!;
const full = await app.listen({ port: 0, host: '127.0.0.1' });

const bare = Fastify({ logger: false });
bare.get('/bare/user', async () => {
  const user = await findLiveTokenWithUser(database.db, jti, new Date());
  return { success: true, message: 'Operation successful', data: { ...user, avatar_url: await avatarOf(database.db, user!.id) } };
});
const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

console.log(JSON.stringify({ full: `${full}/api/v1/user`, bare: `${bareUrl}/bare/user`, token, database: database.kind }));
process.on('SIGTERM', async () => {
  await app.close();
  await bare.close();
  await database.close();
  process.exit(0);
});
