// What the app holds for its whole life and hands to every handler. Later adapters (mail,
// job queue, rates, storage) join here, each chosen by configuration at boot.
import type { Config } from './config.js';
import type { DatabaseKind } from '../db/connection.js';
import type { TokenService } from './auth.js';
import type { FileStorage } from './storage.js';
import type { RateService } from './rates.js';
import type { AssetPriceService } from './asset-prices.js';

export interface AppServices {
  config: Config;
  databaseKind: DatabaseKind;
  tokens: TokenService;
  /** Uploaded files (attachments, icons, imports). */
  storage: FileStorage;
  /** Exchange rates (manual, stored, provider, reverse) for every part that converts money. */
  rates: RateService;
  /** Asset search and prices from the CoinGecko-compatible provider. */
  assetPrices: AssetPriceService;
  /** The contract's `info.version`. */
  specVersion: string;
  /** Build identifier from BUILD_ID, when the deployment sets one. */
  build: string | null;
  /** How many of the spec's operations have a handler in this build. */
  operationCounts: { total: number; implemented: number };
  /** The current time; tests may replace it. */
  now: () => Date;
}
