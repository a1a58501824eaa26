// Names the user typed, matched to the user's own wallets, categories and parties despite
// typos ("Chekcing" is Checking, "restaurent" is Restaurants): a window of as many words as
// the name has is compared by edit distance, and each long word of a longer name may match
// on its own ("food" finds "Food & Dining") at a lower score.
import { fold, tokenize, type Token } from './text.js';

export interface Named {
  id: number;
  name: string;
}

export interface NameMatch<T extends Named> {
  item: T;
  /** 0..1, 1 is exact. */
  score: number;
  start: number;
  end: number;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  // Three rolling rows (the swap looks two rows back): no table per call.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2] + 1);
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length];
}

/** Typos forgiven for a word of this length: none for short words, where one letter changes the word. */
function allowedTypos(length: number): number {
  if (length <= 3) return 0;
  if (length <= 5) return 1;
  if (length <= 9) return 2;
  return 3;
}

/** How alike two folded strings are (0..1), or 0 beyond the typos a word of that length allows. */
export function likeness(typed: string, name: string): number {
  if (typed === name) return 1;
  const allowed = allowedTypos(Math.min(typed.length, name.length));
  // Lengths further apart than the typos allowed cannot match: skip the distance table.
  if (Math.abs(typed.length - name.length) > allowed || (allowed === 0 && typed !== name)) return 0;
  const distance = editDistance(typed, name);
  if (distance > allowed) return 0;
  return 1 - distance / Math.max(typed.length, name.length);
}

/** Folded words of a name, remembered (names repeat on every message; bounded, so a long-running server does not grow). */
const wordsOfName = new Map<string, string[]>();
function nameWords(name: string): string[] {
  let words = wordsOfName.get(name);
  if (!words) {
    if (wordsOfName.size >= 10_000) wordsOfName.clear();
    words = tokenize(fold(name)).map((t) => t.word);
    wordsOfName.set(name, words);
  }
  return words;
}

/**
 * The candidate the folded text names best (ties go to the longer name), or undefined when
 * none reaches `minimum`. Words listed in `ignore` (the sentence's verbs and linking words)
 * never match a name on their own.
 */
export function bestNamed<T extends Named>(folded: string, candidates: readonly T[], minimum = 0.7, ignore: ReadonlySet<string> = new Set()): NameMatch<T> | undefined {
  const tokens = tokenize(folded);
  let best: NameMatch<T> | undefined;
  const consider = (item: T, score: number, from: Token, to: Token) => {
    if (score < minimum) return;
    if (!best || score > best.score || (score === best.score && item.name.length > best.item.name.length)) best = { item, score, start: from.start, end: to.end };
  };
  for (const item of candidates) {
    const words = nameWords(item.name);
    if (words.length === 0) continue;
    const whole = words.join(' ');
    for (let i = 0; i + words.length <= tokens.length; i++) {
      const window = tokens.slice(i, i + words.length);
      if (words.length === 1 && ignore.has(window[0].word)) continue;
      consider(item, likeness(window.map((t) => t.word).join(' '), whole), window[0], window[window.length - 1]);
    }
    if (words.length === 1) continue;
    // One significant word of a longer name, e.g. "food" for "Food & Dining".
    for (const word of words.filter((w) => w.length >= 4)) {
      for (const token of tokens) if (!ignore.has(token.word)) consider(item, likeness(token.word, word) * 0.85, token, token);
    }
  }
  return best;
}
