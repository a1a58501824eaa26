// An S3-compatible server on 127.0.0.1 for the tests of STORAGE_URL=s3://... (s3rver, which
// keeps the objects in a temporary folder and checks request signatures against its own
// account), and servers that fail as an object store or a database can: one that accepts
// connections and never answers, and a port nothing listens on.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { StorageConfig } from '../../server/storage-config.js';
import type { TestContext } from './harness.js';

const BUCKET = 'finance-files';

export interface ObjectStore {
  endpoint: string;
  /** The storage settings of an app keeping its files here, under `prefix`. */
  storage(prefix?: string, timeoutMs?: number): StorageConfig;
}

/** Starts s3rver with one bucket; the app finds its credentials where AWS's are looked for. */
export async function startObjectStore(t: TestContext): Promise<ObjectStore> {
  // s3rver's own account: requests signed with anything else are refused
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  const directory = await mkdtemp(path.join(tmpdir(), 'finance-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  t.teardown(async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return { endpoint, storage: (prefix = '', timeoutMs = 5000) => s3Storage(endpoint, prefix, timeoutMs) };
}

export function s3Storage(endpoint: string, prefix: string, timeoutMs: number): StorageConfig {
  return { kind: 's3', bucket: BUCKET, prefix, endpoint, region: 'us-east-1', forcePathStyle: true, timeoutMs };
}

/** A server that accepts connections and never says a word: a hung store or database. */
export async function silentServer(t: TestContext): Promise<{ port: number }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port };
}

/** A loopback port nothing listens on: connections are refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
