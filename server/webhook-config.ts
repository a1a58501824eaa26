// The webhook settings of the configuration (WEBHOOK_*), read and checked with the rest in
// server/config.ts.
import { BlockList, isIP } from 'node:net';

export interface WebhookConfig {
  /** The most one delivery attempt may take, connection to last byte (WEBHOOK_TIMEOUT_MS, default 10 s). */
  timeoutMs: number;
  /** Attempts of one delivery before it is given up (WEBHOOK_MAX_ATTEMPTS, default 8). */
  maxAttempts: number;
  /** Wait after the first failed attempt, doubled after each further one (WEBHOOK_RETRY_BASE_MS, default 30 s). */
  retryBaseMs: number;
  /** Longest wait between two attempts (WEBHOOK_RETRY_MAX_MS, default 1 h). */
  retryMaxMs: number;
  /** Deliveries given up in a row after which the endpoint is turned off as failing (WEBHOOK_DISABLE_AFTER, default 5). */
  disableAfterFailures: number;
  /** Endpoints served side by side by one worker (WEBHOOK_CONCURRENCY, default 8). */
  concurrency: number;
  /**
   * Addresses an endpoint may reach although they are private, loopback or link-local
   * (WEBHOOK_ALLOWED_NETWORKS: comma-separated IPs or CIDRs, e.g. 10.0.5.0/24,127.0.0.1).
   */
  allowedNetworks: string[];
}

type Env = Record<string, string | undefined>;
type IntReader = (name: string, fallback: number, min?: number, max?: number) => number;

export function webhookConfigFrom(env: Env, int: IntReader, problems: string[]): WebhookConfig {
  const allowedNetworks = (env.WEBHOOK_ALLOWED_NETWORKS ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  for (const network of allowedNetworks) {
    if (!parseNetwork(network)) problems.push(`WEBHOOK_ALLOWED_NETWORKS: "${network}" is not an IP address or CIDR block`);
  }
  return {
    timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    maxAttempts: int('WEBHOOK_MAX_ATTEMPTS', 8, 1, 50),
    retryBaseMs: int('WEBHOOK_RETRY_BASE_MS', 30_000, 0, 86_400_000),
    retryMaxMs: int('WEBHOOK_RETRY_MAX_MS', 3_600_000, 0, 86_400_000),
    disableAfterFailures: int('WEBHOOK_DISABLE_AFTER', 5, 1, 1000),
    concurrency: int('WEBHOOK_CONCURRENCY', 8, 1, 64),
    allowedNetworks,
  };
}

/** "10.0.0.0/8" or a single address, as a BlockList entry; undefined when unreadable. */
export function parseNetwork(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, prefixText] = text.split('/');
  const version = isIP(address);
  if (version === 0) return undefined;
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The allow-list as a BlockList (a list of networks; "blocked" reads as "listed"). */
export function networkList(networks: string[]): BlockList {
  const list = new BlockList();
  for (const text of networks) {
    const network = parseNetwork(text);
    if (network) list.addSubnet(network.address, network.prefix, network.family);
  }
  return list;
}
