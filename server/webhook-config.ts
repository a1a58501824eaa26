// The webhook settings of the configuration (WEBHOOK_*), read and checked with the rest in
// server/config.ts.
import { BlockList, isIP } from 'node:net';
import { outboxDeliveryFrom, type Env, type IntReader, type OutboxDeliveryConfig } from './outbox-config.js';

/** WEBHOOK_TIMEOUT_MS, _MAX_ATTEMPTS (default 8), _RETRY_BASE_MS, _RETRY_MAX_MS, _CONCURRENCY, and: */
export interface WebhookConfig extends OutboxDeliveryConfig {
  /** Deliveries given up in a row after which the endpoint is turned off as failing (WEBHOOK_DISABLE_AFTER, default 5). */
  disableAfterFailures: number;
  /**
   * Addresses an endpoint may reach although they are private, loopback or link-local
   * (WEBHOOK_ALLOWED_NETWORKS: comma-separated IPs or CIDRs, e.g. 10.0.5.0/24,127.0.0.1).
   */
  allowedNetworks: string[];
  /** How long a secret replaced by a rotation still signs beside the new one (WEBHOOK_SECRET_GRACE, default 24 h; 0 = not at all). */
  secretGraceSeconds: number;
}

/** Seconds in a duration setting ("3600", "90m", "24h"), undefined when unreadable. */
export type DurationReader = (text: string) => number | undefined;

export function webhookConfigFrom(env: Env, int: IntReader, problems: string[], duration: DurationReader): WebhookConfig {
  const allowedNetworks = (env.WEBHOOK_ALLOWED_NETWORKS ?? '').split(',').map((n) => n.trim()).filter(Boolean);
  for (const network of allowedNetworks) {
    if (!parseNetwork(network)) problems.push(`WEBHOOK_ALLOWED_NETWORKS: "${network}" is not an IP address or CIDR block`);
  }
  const graceText = (env.WEBHOOK_SECRET_GRACE ?? '').trim() || '24h';
  const secretGraceSeconds = /^0+[smhd]?$/.test(graceText) ? 0 : duration(graceText);
  if (secretGraceSeconds === undefined) problems.push('WEBHOOK_SECRET_GRACE must be a duration such as 3600, 12h or 7d (0: none)');
  return {
    ...outboxDeliveryFrom('WEBHOOK', int, 8),
    disableAfterFailures: int('WEBHOOK_DISABLE_AFTER', 5, 1, 1000),
    allowedNetworks,
    secretGraceSeconds: secretGraceSeconds ?? 86_400,
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
