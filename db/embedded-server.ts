// Serves the embedded PGlite on a loopback port so `pg` (and the job queue) reach it like
// PostgreSQL. pglite-socket's own queue runs each protocol *message* separately, so with
// several connections one client's Parse and Bind can be split by another client's
// statements ("bind message supplies 2 parameters, but prepared statement ..."). This queue
// keeps each connection's messages until the end of its unit (Sync, simple Query, Flush) and
// runs the unit at once; while a connection holds a transaction open, only its units run.
import { createServer, type Server } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';

interface PendingMessage {
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
}

interface Unit {
  handlerId: number;
  messages: PendingMessage[];
  resolve: (bytes: number) => void;
  reject: (error: unknown) => void;
}

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const FLUSH = 0x48; // 'H'
const TERMINATE = 0x58; // 'X'
const PROTOCOL_3 = 196608;

/** True for messages after which the client waits for the server (the end of a unit). */
function endsUnit(message: Uint8Array): boolean {
  const isStartup = message.length >= 8 && new DataView(message.buffer, message.byteOffset).getInt32(4) === PROTOCOL_3;
  return isStartup || [SYNC, QUERY, FLUSH, TERMINATE].includes(message[0]);
}

/**
 * A unit's messages as one buffer: PGlite's backend reads every message of the buffer it is
 * given (its main loop runs until the input is used up), so an extended-protocol query (Parse,
 * Bind, Describe, Execute, Sync) costs one call into the database, and one file-system sync
 * after it, instead of five. A startup or terminate message is always a unit of its own:
 * PGlite answers those outside its main loop.
 */
function batched(messages: PendingMessage[]): PendingMessage[] {
  if (messages.length < 2) return messages;
  const total = messages.reduce((sum, { message }) => sum + message.length, 0);
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const { message } of messages) {
    joined.set(message, offset);
    offset += message.length;
  }
  return [{ message: joined, onData: messages[messages.length - 1].onData }];
}

export class ProtocolUnitQueue {
  private readonly pending = new Map<number, PendingMessage[]>();
  private queue: Unit[] = [];
  private processing = false;
  /** The connection whose unit ran last: the owner of an open transaction. */
  private lastHandlerId: number | null = null;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    const held = this.pending.get(handlerId) ?? [];
    held.push({ message, onData });
    if (!endsUnit(message)) {
      this.pending.set(handlerId, held);
      return Promise.resolve(0); // the client sends the rest of its unit before it reads
    }
    this.pending.delete(handlerId);
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, messages: held, resolve, reject });
      void this.process();
    });
  }

  private async process(): Promise<void> {
    if (this.processing || this.db.closed) return;
    this.processing = true;
    try {
      while (this.queue.length > 0 && !this.db.closed) {
        const index = this.db.isInTransaction() && this.lastHandlerId !== null ? this.queue.findIndex((u) => u.handlerId === this.lastHandlerId) : 0;
        if (index === -1) break; // the transaction's owner has not sent its next unit yet
        const [unit] = this.queue.splice(index, 1);
        let bytes = 0;
        try {
          await this.db.runExclusive(async () => {
            for (const { message, onData } of batched(unit.messages)) {
              await this.db.execProtocolRawStream(message, {
                onRawData: (data) => {
                  bytes += data.length;
                  onData(data);
                },
              });
            }
          });
          this.lastHandlerId = unit.handlerId;
          unit.resolve(bytes);
        } catch (error) {
          unit.reject(error);
        }
      }
    } finally {
      this.processing = false;
    }
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.pending.delete(handlerId);
    this.queue = this.queue.filter((unit) => {
      if (unit.handlerId !== handlerId) return true;
      unit.reject(new Error('connection closed'));
      return false;
    });
  }

  /** A connection that goes away inside a transaction leaves it rolled back. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    // A socket may close after the database did (shutdown): there is nothing left to roll back.
    if (this.db.closed) return;
    if (this.db.isInTransaction() && this.lastHandlerId === handlerId) {
      await this.db.exec('ROLLBACK');
      this.lastHandlerId = null;
      void this.process();
    }
  }
}

/** Listens on 127.0.0.1 (random port) and returns the address and a stop function. */
export async function serveEmbedded(db: PGlite): Promise<{ host: string; port: number; stop(): Promise<void> }> {
  const queue = new ProtocolUnitQueue(db);
  const handlers = new Set<PGLiteSocketHandler>();
  const server: Server = createServer((socket) => {
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
    handlers.add(handler);
    socket.once('close', () => handlers.delete(handler));
    void handler.attach(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('embedded database server has no address');
  return {
    host: '127.0.0.1',
    port: address.port,
    async stop() {
      for (const handler of handlers) await handler.detach(true);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
