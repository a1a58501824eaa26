// Background work runs on a PostgreSQL-backed queue (pg-boss), never on ad-hoc timers: each
// job in jobs/ has a queue, an optional cron schedule, and a worker. On the embedded database
// the same queue runs in-process through its loopback server. Several processes may run
// workers; each job is written to be safe when it runs twice.
import PgBoss from 'pg-boss';
import { sql, type Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { collectingNudges } from '../db/job-nudges.js';
import type { Database } from '../db/schema.js';
import type { AppServices } from './services.js';

export interface JobContext {
  db: Kysely<Database>;
  services: AppServices;
  log: FastifyBaseLogger;
}

export interface JobDefinition<Data extends object = object> {
  name: string;
  /** Cron expression (UTC) when the job also runs on a schedule. */
  cron?: string;
  /**
   * Queue one run as the runner starts: the job drains work a stopped or crashed process may
   * have left (an outbox, unfinished imports, missed occurrences), so it resumes at once
   * instead of at the next scheduled run.
   */
  resumeAtStart?: boolean;
  run(ctx: JobContext, data: Data): Promise<void>;
}

/** The slot within which pg-boss turns away a second wake with the same key (its longest: the archive interval, 12 h). */
const WAKE_SINGLETON_SECONDS = 43_200;

export class JobRunner {
  private boss: PgBoss | undefined;
  /** This process's worker of each queue, woken by `send` (see there). */
  private readonly workers = new Map<string, string>();
  /** The second of the last wake this process queued, per job (see `wakeAt`). */
  private readonly lastWake = new Map<string, number>();

  constructor(
    private readonly connectionString: string,
    private readonly definitions: JobDefinition<any>[],
    private readonly ctx: JobContext,
    private readonly pollingIntervalSeconds = 2,
    /**
     * Several processes share the database (PostgreSQL): their runners set the queues up one at
     * a time. pg-boss's own setup (its schema, create_queue, schedules) deadlocked when three
     * processes started at once (test/process-fleet.test.ts). The embedded database has one
     * process, and holding a transaction open there would stall pg-boss's own connections.
     */
    private readonly sharedDatabase = false,
  ) {}

  async start(): Promise<void> {
    const boss = new PgBoss({ connectionString: this.connectionString, max: 4 });
    boss.on('error', (error) => this.ctx.log.error({ err: error }, 'job queue error'));
    const setUp = async () => {
      await boss.start();
      for (const job of this.definitions) {
        await boss.createQueue(job.name);
        if (job.cron) await boss.schedule(job.name, job.cron);
      }
    };
    if (this.sharedDatabase) {
      await this.ctx.db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtextextended('job-queue-setup', 0))`.execute(trx);
        await setUp();
      });
    } else {
      await setUp();
    }
    for (const job of this.definitions) {
      const worker = await boss.work<object>(job.name, { pollingIntervalSeconds: this.pollingIntervalSeconds }, async (batch) => {
        for (const item of batch) {
          const nudges = new Set<string>();
          await collectingNudges(nudges, () => job.run(this.ctx, item.data ?? {}));
          for (const name of nudges) await this.send(name);
        }
      });
      this.workers.set(job.name, worker);
    }
    this.boss = boss;
    for (const job of this.definitions) if (job.resumeAtStart) await boss.send(job.name, {});
  }

  /**
   * Queues one run of a job now, and wakes this process's worker of the queue so an idle one
   * fetches it at once instead of at its next poll (up to `pollingIntervalSeconds` later: an
   * import's analysis and its confirm each waited ~1 s on average). Workers of other processes
   * still find it by polling; a busy worker fetches it after its current job as before.
   */
  async send(name: string, data: object = {}): Promise<void> {
    if (!this.boss) throw new Error('the job queue is not started');
    await this.boss.send(name, data);
    const worker = this.workers.get(name);
    if (worker) this.boss.notifyWorker(worker);
  }

  /**
   * Queues one run of a job for the moment `at`, rounded up to the second (a delayed pg-boss
   * job, kept in the database: whichever process polls first after `at` runs it, also when the
   * process that asked is gone). One wake per job and second: this process remembers the last
   * one it queued, and a singleton key turns away another process's for the same second.
   */
  async wakeAt(name: string, at: Date): Promise<void> {
    if (!this.boss) throw new Error('the job queue is not started');
    const second = Math.ceil(at.getTime() / 1000);
    if (this.lastWake.get(name) === second) return;
    await this.boss.send(name, {}, { startAfter: new Date(second * 1000), singletonKey: `wake-${second}`, singletonSeconds: WAKE_SINGLETON_SECONDS });
    this.lastWake.set(name, second);
  }

  async stop(): Promise<void> {
    await this.boss?.stop({ graceful: true, wait: true, timeout: 10_000 });
    this.boss = undefined;
    this.workers.clear();
  }
}

/**
 * Queues one run of the job `name` from outside the service (the admin CLI's run-job): the
 * worker of whichever running process polls the queue first runs it. False when the queue is
 * not set up yet (no service has started its jobs on this database).
 */
export async function queueJobRun(connectionString: string, name: string): Promise<boolean> {
  const boss = new PgBoss({ connectionString, max: 1, migrate: false, supervise: false, schedule: false });
  boss.on('error', () => {}); // a failure surfaces from start or send below
  try {
    await boss.start();
    // a queue nobody created takes no job: send answers null
    return (await boss.send(name, {})) !== null;
  } catch (error) {
    if (/not installed/.test((error as Error).message)) return false; // pg-boss's schema is not there yet
    throw error;
  } finally {
    await boss.stop({ graceful: false });
  }
}
