// SimpleFIN (simplefin.org/protocol.html) behind the bank adapter interface. A setup token is
// the base64 of a claim URL; one POST to it answers the access URL (with basic-auth
// credentials), and a 403 means someone claimed it before. `GET {access}/accounts` answers
// every account with its lines for a window. Every request is bounded by `timeoutMs` (a bridge
// that hangs fails the sync, it never holds it).
import { Decimal } from '../domain/money.js';
import { BankBridgeError, type BankAccount, type BankAdapter, type BankFetch, type BankLine, type BankWindow } from './bank-adapters.js';

/** The claim URL a setup token names, or undefined when it is no base64 of an http(s) URL. */
export function claimUrlOf(setupToken: string): URL | undefined {
  const text = setupToken.trim();
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(text)) return undefined;
  try {
    const url = new URL(Buffer.from(text, 'base64').toString('utf8').trim());
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

async function bounded(url: URL, init: RequestInit, timeoutMs: number): Promise<{ status: number; text: string }> {
  try {
    const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new BankBridgeError(`The bridge did not answer within ${timeoutMs / 1000} seconds.`);
    throw new BankBridgeError(`The bridge could not be reached (${(error as Error).message}).`);
  }
}

/** Claims the token once: the access URL, or a BankBridgeError saying why not. */
export async function claimSetupToken(claimUrl: URL, timeoutMs: number): Promise<string> {
  const { status, text } = await bounded(claimUrl, { method: 'POST', headers: { 'content-length': '0' } }, timeoutMs);
  if (status === 403) {
    throw new BankBridgeError('This setup token was claimed before. If you did not claim it, it may be compromised: disable it at your SimpleFIN bridge and make a new one.', 403);
  }
  if (status < 200 || status >= 300) throw new BankBridgeError(`The bridge refused the claim (HTTP ${status}).`, status);
  const access = text.trim();
  try {
    const url = new URL(access);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.username) return url.href;
  } catch {
    // answered below
  }
  throw new BankBridgeError('The bridge answered the claim with something that is not an access URL.');
}

const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const AMOUNT = /^[+-]?\d+(\.\d+)?$/;

/** One account of the answer as the adapter's shape; undefined when it cannot be read. */
function accountOf(raw: Record<string, any>): BankAccount | undefined {
  if (typeof raw?.id !== 'string' || typeof raw.balance !== 'string' || !AMOUNT.test(raw.balance)) return undefined;
  const lines: BankLine[] = [];
  for (const tx of Array.isArray(raw.transactions) ? raw.transactions : []) {
    if (typeof tx?.id !== 'string' || typeof tx.amount !== 'string' || !AMOUNT.test(tx.amount.trim())) continue;
    const pending = tx.pending === true || !(Number(tx.posted) > 0);
    const when = Number(tx.posted) > 0 ? Number(tx.posted) : Number(tx.transacted_at) > 0 ? Number(tx.transacted_at) : Date.now() / 1000;
    lines.push({
      id: tx.id,
      date: day(when),
      amount: new Decimal(tx.amount.trim()).toFixed(),
      description: String(tx.description ?? '').trim(),
      payee: typeof tx.payee === 'string' && tx.payee.trim() ? tx.payee.trim() : null,
      memo: typeof tx.memo === 'string' && tx.memo.trim() ? tx.memo.trim() : null,
      pending,
    });
  }
  return {
    id: raw.id,
    name: String(raw.name ?? raw.id),
    currency: typeof raw.currency === 'string' && /^[A-Z]{3}$/.test(raw.currency) ? raw.currency : 'USD',
    balance: new Decimal(raw.balance).toFixed(),
    available_balance: typeof raw['available-balance'] === 'string' && AMOUNT.test(raw['available-balance']) ? new Decimal(raw['available-balance']).toFixed() : null,
    balance_date: new Date((Number(raw['balance-date']) || 0) * 1000),
    bank: typeof raw.org?.name === 'string' ? raw.org.name : (raw.org?.domain ?? null),
    lines,
  };
}

export class SimpleFinAdapter implements BankAdapter {
  constructor(
    private readonly accessUrl: string,
    private readonly timeoutMs: number,
  ) {}

  listAccounts(): Promise<BankFetch> {
    return this.accounts({ 'balances-only': '1' });
  }

  fetchTransactions(window: BankWindow): Promise<BankFetch> {
    return this.accounts({
      'start-date': String(Math.floor(window.from.getTime() / 1000)),
      'end-date': String(Math.ceil(window.to.getTime() / 1000)),
      pending: '1',
    });
  }

  private async accounts(query: Record<string, string>): Promise<BankFetch> {
    const access = new URL(this.accessUrl);
    // fetch refuses a URL with credentials: they travel as basic auth
    const auth = Buffer.from(`${decodeURIComponent(access.username)}:${decodeURIComponent(access.password)}`).toString('base64');
    access.username = '';
    access.password = '';
    const url = new URL(`${access.href.replace(/\/+$/, '')}/accounts`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const { status, text } = await bounded(url, { headers: { authorization: `Basic ${auth}`, accept: 'application/json' } }, this.timeoutMs);
    if (status === 402) throw new BankBridgeError('The SimpleFIN bridge asks for payment (HTTP 402): renew the subscription there.', 402);
    if (status === 403) throw new BankBridgeError('The SimpleFIN bridge refused access (HTTP 403): the connection was disabled there; connect again with a new setup token.', 403);
    if (status < 200 || status >= 300) throw new BankBridgeError(`The SimpleFIN bridge answered HTTP ${status}.`, status);
    let body: { errors?: unknown; accounts?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      throw new BankBridgeError('The SimpleFIN bridge answered something that is not JSON.');
    }
    const errors = Array.isArray(body.errors) ? body.errors.map(String) : [];
    const accounts = (Array.isArray(body.accounts) ? body.accounts : []).map(accountOf).filter((a): a is BankAccount => a !== undefined);
    return { accounts, errors };
  }
}
