// What the app holds for its whole life and hands to every handler. Later adapters (mail,
// job queue, rates, storage) join here, each chosen by configuration at boot.
import type { Config } from './config.js';
import type { DatabaseKind } from '../db/connection.js';
import type { TokenService } from './auth.js';
import type { FileStorage } from './storage.js';
import type { DatabaseServices, JobQueue } from '../db/services.js';
import type { AssetPriceService } from './asset-prices.js';
import type { Lifecycle } from './lifecycle.js';
import type { VapidKeyPair } from '../db/vapid-keys.js';

/**
 * The queue handlers see. The app is built before the job runner starts (main.ts attaches it);
 * without a runner (RUN_JOBS=false, tests) a nudge does nothing and the job's schedule, or
 * another process's runner, picks the work up.
 */
export class AttachableJobQueue implements JobQueue {
  private target: JobQueue | undefined;

  /** A failed nudge is reported, not thrown: the caller's work is committed and the schedule retries. */
  constructor(private readonly onError: (error: unknown) => void = () => {}) {}

  attach(target: JobQueue | undefined): void {
    this.target = target;
  }

  async send(name: string, data: object = {}): Promise<void> {
    try {
      await this.target?.send(name, data);
    } catch (error) {
      this.onError(error);
    }
  }

  async wakeAt(name: string, at: Date): Promise<void> {
    try {
      await this.target?.wakeAt?.(name, at);
    } catch (error) {
      this.onError(error);
    }
  }
}

export interface AppServices extends DatabaseServices {
  config: Config;
  databaseKind: DatabaseKind;
  tokens: TokenService;
  /** The secret that signs tokens and keys one-time code hashes: APP_KEY, or the database's (server/app-key.ts). */
  appKey: () => Promise<string>;
  /** The VAPID key pair that signs Web Push: VAPID_*, or the database's (server/vapid-keys.ts). */
  vapidKeys: () => Promise<VapidKeyPair>;
  /** Starting, serving or draining: what the readiness check and the starting gate read. */
  lifecycle: Lifecycle;
  /** Uploaded files (attachments, icons, imports). */
  storage: FileStorage;
  /** Asset search and prices from the CoinGecko-compatible provider. */
  assetPrices: AssetPriceService;
  /** The contract's `info.version`. */
  specVersion: string;
  /** BUILD_ID, else `code-` and a digest of the running code (server/code-fingerprint.ts). */
  build: string;
  /** How many of the spec's operations have a handler in this build. */
  operationCounts: { total: number; implemented: number };
  /** The queue nudge, attachable once the job runner starts (narrows DatabaseServices.jobs). */
  jobs: AttachableJobQueue;
}
