// Where a webhook may be sent. An endpoint is a URL a user typed, so it must not become a way
// into the service's own network: loopback, private, link-local, CGNAT, multicast, reserved and
// unspecified addresses (IPv4, IPv6, and IPv4 written inside IPv6) are refused unless the
// operator's allow-list (WEBHOOK_ALLOWED_NETWORKS) names them. The check runs on every address
// the name resolves to at delivery time, and the connection goes to the address checked (the
// request's `lookup` returns it), so a DNS answer that changes in between cannot redirect it.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkList } from './webhook-config.js';

const INTERNAL_V4 = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const;
const INTERNAL_V6 = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 of any IPv4, internal ones included
  ['2001:db8::', 32], // documentation
] as const;

const internal = new BlockList();
for (const [address, prefix] of INTERNAL_V4) internal.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of INTERNAL_V6) internal.addSubnet(address, prefix, 'ipv6');

export class TargetRefused extends Error {}

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address (::ffff:10.0.0.1, ::ffff:a00:1), else the address. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  if (isIP(address) === 4) return { address, family: 'ipv4' };
  const match = /^(?:0{0,4}:){0,5}(?:ffff:)?((?:\d+\.){3}\d+)$/i.exec(address) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (match && match.length === 2) return { address: match[1], family: 'ipv4' };
  if (match) {
    const [high, low] = [parseInt(match[1], 16), parseInt(match[2], 16)];
    return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), family: 'ipv4' };
  }
  return { address, family: 'ipv6' };
}

export class TargetPolicy {
  private readonly allowed: BlockList;

  constructor(allowedNetworks: string[]) {
    this.allowed = networkList(allowedNetworks);
  }

  /** Why this address may not be reached, or undefined when it may. */
  refusal(address: string): string | undefined {
    const plain = unmapped(address);
    if (this.allowed.check(plain.address, plain.family)) return undefined;
    if (internal.check(plain.address, plain.family)) return `${address} is a private, loopback or reserved address`;
    return undefined;
  }

  /**
   * At registration: a URL whose host is an internal address, or a name that always means this
   * machine, is refused; other names are resolved at delivery time.
   */
  refusalOfUrl(url: URL): string | undefined {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return this.refusal(host);
    if (host === 'localhost' || host.endsWith('.localhost')) return this.refusal('127.0.0.1');
    return undefined;
  }

  /** Resolves the URL's host and returns the address to connect to; TargetRefused when any answer is internal. */
  async resolve(url: URL): Promise<{ address: string; family: 4 | 6 }> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let answers: Array<{ address: string; family: number }>;
    try {
      answers = isIP(host) ? [{ address: host, family: isIP(host) }] : await dnsLookup(host, { all: true, verbatim: false });
    } catch (error) {
      throw new TargetRefused(`cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
    if (answers.length === 0) throw new TargetRefused(`cannot resolve ${host}`);
    // one internal answer refuses the name: a rebinding name mixes a public and an internal one
    for (const answer of answers) {
      const reason = this.refusal(answer.address);
      if (reason) throw new TargetRefused(reason);
    }
    // IPv4 answers come first (verbatim: false), as most receivers listen on IPv4
    return { address: answers[0].address, family: answers[0].family === 6 ? 6 : 4 };
  }
}

const policies = new WeakMap<object, TargetPolicy>();
/** The policy of a configuration's allow-list, made once. */
export function targetPolicyFor(config: { allowedNetworks: string[] }): TargetPolicy {
  let policy = policies.get(config);
  if (!policy) policies.set(config, (policy = new TargetPolicy(config.allowedNetworks)));
  return policy;
}
