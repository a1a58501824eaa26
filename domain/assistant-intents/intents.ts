// Reads one chat message into what the user wants: record an expense or an income, move money
// between wallets, or ask about balances, spending, top categories, budgets or recent
// transactions. Pure: the caller passes the user's local today and the names of their
// wallets, categories and parties; the result names records by id, never by guess.
import { findAmounts, type FoundAmount } from './amounts.js';
import { findDay, findPeriod } from './dates.js';
import { bestNamed, likeness, type Named } from './fuzzy.js';
import { CONCEPTS, CUES, FROM_WORDS, LANGUAGE_MARKERS, LANGUAGES, PURPOSE_WORDS, STOP_WORDS, TO_WORDS, type Language } from './phrases.js';
import { blank, fold, tokenize } from './text.js';

export interface LedgerNames {
  wallets: Array<Named & { currency: string }>;
  categories: Array<Named & { type: 'income' | 'expense' }>;
  parties: Named[];
}

export interface ParseContext {
  /** The user's local today, YYYY-MM-DD. */
  today: string;
  /** The language the question was asked in (Accept-Language), when known. */
  language?: string | null;
  names: LedgerNames;
}

export type Intent =
  | {
      kind: 'record';
      type: 'income' | 'expense';
      amount: string;
      currency?: string;
      walletId?: number;
      categoryId?: number;
      partyId?: number;
      description?: string;
      day?: string;
    }
  | { kind: 'transfer'; amount: string; currency?: string; fromWalletId?: number; toWalletId?: number; day?: string }
  | { kind: 'balance' }
  | { kind: 'spending'; type: 'income' | 'expense'; categoryId?: number; from: string; to: string }
  | { kind: 'top_categories'; type: 'income' | 'expense'; from: string; to: string }
  | { kind: 'budgets' }
  | { kind: 'recent'; limit: number }
  | { kind: 'help' };

export interface Parsed {
  intent: Intent;
  language: Language;
}

const WALLET_SCORE = 0.8;
const PARTY_SCORE = 0.75;
const CATEGORY_SCORE = 0.8;
const RECENT_DEFAULT = 5;

/** The language of the sentence: the one with most marker words; ties go to Accept-Language, then English. */
export function detectLanguage(folded: string, accepted?: string | null): Language {
  const words = tokenize(folded).map((t) => t.word);
  const preferred = LANGUAGES.find((l) => accepted?.toLowerCase().startsWith(l));
  let best: Language = preferred ?? 'en';
  let bestCount = 0;
  for (const language of LANGUAGES) {
    const count = words.filter((w) => LANGUAGE_MARKERS[language].has(w)).length;
    if (count > bestCount || (count === bestCount && count > 0 && language === preferred)) [best, bestCount] = [language, count];
  }
  return best;
}

export function parseSentence(sentence: string, ctx: ParseContext): Parsed {
  const folded = fold(sentence.trim());
  const language = detectLanguage(folded, ctx.language);
  return { intent: readIntent(sentence.trim(), folded, ctx), language };
}

function readIntent(original: string, folded: string, ctx: ParseContext): Intent {
  const isQuestion = folded.includes('?') || CUES.question.test(folded);
  if (isQuestion) return readQuestion(folded, ctx);
  const day = findDay(folded, ctx.today);
  const withoutDay = day ? blank(folded, day.start, day.end) : folded;
  const amount = findAmounts(withoutDay)[0];
  if (!amount) return readQuestion(folded, ctx);
  const rest = blank(withoutDay, amount.start, amount.end);
  if (CUES.transfer.test(folded)) return readTransfer(rest, amount, day?.day, ctx);
  const type = CUES.income.test(folded) ? 'income' : 'expense';
  return readRecord(original, rest, type, amount, day?.day, ctx);
}

/** A question, or a statement without an amount: what it asks about; help when nothing fits. */
function readQuestion(folded: string, ctx: ParseContext): Intent {
  const period = findPeriod(folded, ctx.today);
  const from = period?.from ?? `${ctx.today.slice(0, 8)}01`;
  const to = period?.to ?? ctx.today;
  const type = CUES.incomeQuestion.test(folded) && !CUES.expense.test(folded) ? 'income' : 'expense';
  if (CUES.budget.test(folded)) return { kind: 'budgets' };
  if (CUES.recent.test(folded)) {
    const count = /\b(\d{1,2})\b/.exec(folded);
    return { kind: 'recent', limit: count ? Math.min(50, Math.max(1, Number(count[1]))) : RECENT_DEFAULT };
  }
  if (CUES.top.test(folded) || (CUES.categories.test(folded) && !CUES.balance.test(folded))) return { kind: 'top_categories', type, from, to };
  if (CUES.expense.test(folded) || CUES.incomeQuestion.test(folded) || /\bspending\b|\bdepenses\b|\bgastos\b|\bausgaben\b/.test(folded)) {
    const unperiod = period ? blank(folded, period.start, period.end) : folded;
    const category = guessCategory(unperiod, type, ctx.names.categories);
    return { kind: 'spending', type, ...(category ? { categoryId: category.id } : {}), from, to };
  }
  if (CUES.balance.test(folded)) return { kind: 'balance' };
  return { kind: 'help' };
}

const wordsOf = (list: string) => `\\b(?:${list})\\b`;
const FROM_SEGMENT = new RegExp(`${wordsOf(FROM_WORDS)}(.*?)(?=${wordsOf(TO_WORDS)}|$)`);
const TO_SEGMENT = new RegExp(`${wordsOf(TO_WORDS)}((?:(?!${wordsOf(FROM_WORDS)}).)*)`);

/** The wallet a part of the sentence names, matched within that part only. */
function walletIn(folded: string, segment: RegExp, wallets: LedgerNames['wallets'], except?: number): number | undefined {
  const match = segment.exec(folded);
  if (!match) return undefined;
  const offset = match.index + match[0].length - match[1].length;
  const part = ' '.repeat(offset) + match[1];
  return bestNamed(part, wallets.filter((w) => w.id !== except), WALLET_SCORE, STOP_WORDS)?.item.id;
}

function readTransfer(rest: string, amount: FoundAmount, day: string | undefined, ctx: ParseContext): Intent {
  const fromWalletId = walletIn(rest, FROM_SEGMENT, ctx.names.wallets);
  const toWalletId = walletIn(rest, TO_SEGMENT, ctx.names.wallets, fromWalletId);
  return {
    kind: 'transfer',
    amount: amount.amount,
    ...(amount.currency ? { currency: amount.currency } : {}),
    ...(fromWalletId !== undefined ? { fromWalletId } : {}),
    ...(toWalletId !== undefined ? { toWalletId } : {}),
    ...(day ? { day } : {}),
  };
}

function readRecord(original: string, rest: string, type: 'income' | 'expense', amount: FoundAmount, day: string | undefined, ctx: ParseContext): Intent {
  let text = rest;
  const wallet = bestNamed(text, ctx.names.wallets, WALLET_SCORE, STOP_WORDS);
  if (wallet) text = blankWithMarker(text, wallet.start, wallet.end);
  const party = bestNamed(text, ctx.names.parties, PARTY_SCORE, STOP_WORDS);
  const description = describe(original, text, amount);
  // The party stays in the text: a party's name may say what the money was for ("Uber").
  const category = guessCategory(text, type, ctx.names.categories);
  return {
    kind: 'record',
    type,
    amount: amount.amount,
    ...(amount.currency ? { currency: amount.currency } : {}),
    ...(wallet ? { walletId: wallet.item.id } : {}),
    ...(category ? { categoryId: category.id } : {}),
    ...(party ? { partyId: party.item.id } : {}),
    ...(description ? { description } : {}),
    ...(day ? { day } : {}),
  };
}

/** Blanks a wallet's name and the linking words before it ("from my", "sur le compte", "with"). */
function blankWithMarker(text: string, start: number, end: number): string {
  const before = /(?:\b(?:from|with|using|on|into|to|in|out of|de|du|depuis|sur|dans|avec|par|con|en|desde|mit|von|vom|auf|nach)\b\s*)?(?:\b(?:my|the|mon|ma|mes|le|la|l'|mi|mis|el|mein|meine|meinem|meiner)\b\s*)?(?:\b(?:compte|account|cuenta|konto)\b\s*)?$/;
  const marker = before.exec(text.slice(0, start));
  return blank(text, marker ? marker.index : start, end);
}

/** What the expense was for: the words after "on"/"for"/"pour"… that follow the amount, as typed. */
function describe(original: string, text: string, amount: FoundAmount): string | undefined {
  const sameLength = original.length === text.length;
  const after = text.slice(amount.end);
  const purpose = PURPOSE_WORDS.exec(after);
  const startAt = purpose ? amount.end + purpose.index + purpose[0].length : -1;
  if (startAt === -1) return undefined;
  const kept = [...text.slice(startAt)].map((ch, i) => (ch === ' ' ? ' ' : sameLength ? original[startAt + i] : ch)).join('');
  const cleaned = kept
    .replace(/\s+/g, ' ')
    .replace(/^\s*(?:a|an|the|my|le|la|les|l'|un|une|des|du|mon|ma|mes|el|la|un|una|ein|eine|einen)\s+/i, '')
    .replace(/[\s.!,;:]+$/, '')
    .trim();
  return cleaned.length > 0 ? cleaned.slice(0, 255) : undefined;
}

/** A category of `type` the text names (despite typos), else one its words imply ("dinner" -> Restaurants). */
export function guessCategory(folded: string, type: 'income' | 'expense', categories: LedgerNames['categories']): Named | undefined {
  const own = categories.filter((c) => c.type === type);
  const named = bestNamed(folded, own, CATEGORY_SCORE, STOP_WORDS);
  if (named) return named.item;
  const ownFolded = own.map((c) => ({ category: c, folded: fold(c.name) }));
  for (const concept of CONCEPTS) {
    if (concept.type !== type || !concept.cues.test(folded)) continue;
    for (const name of concept.names) {
      const found = ownFolded.find((c) => likeness(c.folded, name) >= 0.85);
      if (found) return found.category;
    }
  }
  return undefined;
}
