// The embedded database's own thread: PGlite and the loopback server that serves it
// (embedded-server.ts) run here, so its statements execute beside the thread that handles
// requests instead of on it, and its start (a second or more: WebAssembly, the data files,
// PostgreSQL's own start) overlaps what the process does meanwhile. db/connection.ts starts
// this thread and speaks to it in the messages below; everything else reaches the database
// over the loopback port, as it would PostgreSQL.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
// trigram indexes serve the transaction list's substring search (022)
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { serveEmbedded } from './embedded-server.js';

export interface EmbeddedStart {
  /** The data directory on disk; undefined keeps the database in memory. */
  dataPath?: string;
  /** A dumped data directory (uncompressed tar) to start from instead of an empty cluster. */
  startFrom?: ArrayBuffer;
}

export type EmbeddedRequest = { id: number; kind: 'dump' | 'close' };

export type EmbeddedReply =
  | { kind: 'ready'; host: string; port: number }
  | { kind: 'failed'; message: string }
  | { id: number; kind: 'dumped'; tar: ArrayBuffer }
  | { id: number; kind: 'closed' }
  | { id: number; kind: 'error'; message: string };

const port = parentPort!;
const { dataPath, startFrom } = workerData as EmbeddedStart;
const say = (reply: EmbeddedReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

try {
  const pglite = await PGlite.create(dataPath, { extensions: { pg_trgm }, loadDataDir: startFrom ? new Blob([startFrom]) : undefined });
  const server = await serveEmbedded(pglite);
  port.on('message', async ({ id, kind }: EmbeddedRequest) => {
    try {
      if (kind === 'dump') {
        const tar = await (await pglite.dumpDataDir('none')).arrayBuffer();
        say({ id, kind: 'dumped', tar }, [tar]);
      } else {
        await server.stop();
        await pglite.close(); // a clean shutdown: the next start needs no recovery
        say({ id, kind: 'closed' });
        port.close();
      }
    } catch (error) {
      say({ id, kind: 'error', message: (error as Error).stack ?? String(error) });
    }
  });
  say({ kind: 'ready', host: server.host, port: server.port });
} catch (error) {
  say({ kind: 'failed', message: (error as Error).stack ?? String(error) });
  port.close();
}
