// Enrichment without a language model: the names a suggestion carries are matched to the
// user's own wallets, parties and categories (case and spacing ignored), and duplicates of
// existing transactions are flagged (DECISIONS, Imports): `exact` = same amount, same date
// and the same description (case and spacing ignored, small typos tolerated); `near` = same
// wallet, same amount and a date within 3 days. An exact match wins over a near one.
import { Decimal } from '../money.js';
import type { SuggestionDraft } from './suggestions.js';

export interface UserRecords {
  wallets: Array<{ id: number; name: string; currency: string; description: string | null }>;
  parties: Array<{ id: number; name: string }>;
  categories: Array<{ id: number; name: string; type: 'income' | 'expense' }>;
}

export interface Matches {
  walletId: number | null;
  partyId: number | null;
  categoryId: number | null;
}

export type MatchedDraft = SuggestionDraft & Matches;

const normalised = (name: string | null) => name?.toLowerCase().replace(/\s+/g, ' ').trim() || null;
const compact = (text: string | null) => text?.toLowerCase().replace(/[\s-]+/g, '') || null;

/** Drafts with the ids of the records they name; a matched wallet gives its currency. */
export function matchRecords(drafts: SuggestionDraft[], records: UserRecords): MatchedDraft[] {
  // names normalised once, not once per draft (a batch of thousands against thousands of parties)
  const parties = new Map<string, number>();
  for (const party of records.parties) {
    const name = normalised(party.name);
    if (name !== null && !parties.has(name)) parties.set(name, party.id);
  }
  const categoriesByName = new Map<string, UserRecords['categories']>();
  for (const category of records.categories) {
    const name = normalised(category.name);
    if (name !== null) categoriesByName.set(name, [...(categoriesByName.get(name) ?? []), category]);
  }
  const wallets = records.wallets.map((wallet) => ({ wallet, name: normalised(wallet.name), account: compact(wallet.description) }));
  return drafts.map((draft) => {
    const wallet = matchWallet(draft, wallets);
    const partyName = normalised(draft.party);
    const categoryName = normalised(draft.category);
    const categories = (categoryName !== null && categoriesByName.get(categoryName)) || [];
    const category = categories.find((c) => c.type === draft.type) ?? categories[0];
    // Object.assign, not a spread: V8 copies a spread that adds keys ~10x slower (~0.5 s per 100,000 drafts)
    return Object.assign({}, draft, {
      currency: wallet?.currency ?? draft.currency,
      walletId: wallet?.id ?? null,
      partyId: (partyName !== null && parties.get(partyName)) || null,
      categoryId: category?.id ?? null,
    });
  });
}

/** A wallet with its name and description as matching compares them (made once per batch, not per draft). */
interface WalletKeys {
  wallet: UserRecords['wallets'][number];
  name: string | null;
  account: string | null;
}

/** By name (in the draft's currency when it has one); a statement's account may also be in a wallet's description. */
function matchWallet(draft: SuggestionDraft, wallets: WalletKeys[]) {
  const name = normalised(draft.wallet);
  if (name === null) return undefined;
  const usable = wallets.filter((w) => draft.currency === null || w.wallet.currency === draft.currency);
  const account = compact(draft.wallet);
  return (
    usable.find((w) => w.name === name) ?? (account !== null && account.length >= 6 ? usable.find((w) => w.account?.includes(account)) : undefined)
  )?.wallet;
}

export interface ExistingTransaction {
  id: number;
  walletId: number;
  type: 'income' | 'expense';
  amount: string;
  description: string | null;
  /** The calendar day of the transaction in the user's time zone. */
  date: string;
}

export interface DuplicateFound {
  kind: 'exact' | 'near';
  transaction: ExistingTransaction;
}

/** Days a `near` duplicate may be apart. */
export const NEAR_DAYS = 3;

export function findDuplicate(draft: MatchedDraft, existing: ExistingTransaction[]): DuplicateFound | null {
  if (draft.amount === null || draft.date === null || existing.length === 0) return null;
  const amount = new Decimal(draft.amount);
  const sameAmount = existing.filter((tx) => amount.equals(tx.amount));
  const exact = sameAmount.find((tx) => tx.date === draft.date && similarDescriptions(tx.description, draft.description));
  if (exact) return { kind: 'exact', transaction: exact };
  const near = sameAmount
    .filter((tx) => draft.walletId !== null && tx.walletId === draft.walletId)
    .map((tx) => ({ tx, apart: Math.abs(dayNumber(tx.date) - dayNumber(draft.date!)) }))
    .filter(({ apart }) => apart <= NEAR_DAYS)
    .sort((a, b) => a.apart - b.apart || a.tx.id - b.tx.id)[0];
  return near ? { kind: 'near', transaction: near.tx } : null;
}

/** Equal after case and spacing are ignored, or within a 20 % edit distance; two missing descriptions are equal. */
export function similarDescriptions(a: string | null, b: string | null): boolean {
  const x = normalised(a);
  const y = normalised(b);
  if (x === null || y === null) return x === y;
  if (x === y) return true;
  return levenshtein(x, y) <= Math.floor(0.2 * Math.max(x.length, y.length));
}

function dayNumber(day: string): number {
  return Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
