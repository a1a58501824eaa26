// Text as rules compare it: without case or accents, the way users expect with German and
// French bank text ("Überweisung", "UEBERWEISUNG", "Uberweisung" and "überweisung" are one
// word; "Prélèvement" is "PRELEVEMENT"). Regular expressions run on RE2's linear-time engine
// (re2js), never on JavaScript's backtracking one: a user's pattern such as (a+)+$ costs time
// linear in the text, not exponential.
import { RE2JS } from 're2js';

const COMBINING_MARKS = /\p{M}+/gu;

/**
 * The folded form of text for is/contains/starts_with/one_of: Unicode compatibility form,
 * accents removed, case folded, ß as ss, the German umlaut spellings ae/oe/ue read as a/o/u
 * (after accents are gone "Ü" and "UE" both end as "u"), runs of white space as one space.
 * Both sides of a comparison are folded alike, so the rare word that merely contains "ue"
 * ("Queue") still equals itself.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(COMBINING_MARKS, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/([aou])e/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The form of text a regex is matched against: accents removed, case kept (the pattern is
 * compiled case-insensitive), no digraph folding (it would change what the pattern's author
 * wrote character by character).
 */
export function regexSubject(text: string): string {
  return text.normalize('NFKD').replace(COMBINING_MARKS, '').replace(/ß/g, 'ss');
}

export class RegexSyntaxError extends Error {}

/** A compiled pattern: `test` finds it anywhere in a text already made a `regexSubject`. */
export interface TextPattern {
  test(subject: string): boolean;
}

// Compiled patterns by source: pure functions of the pattern, so a per-process cache is
// correct by construction; bounded so a user with thousands of patterns cannot grow it forever.
const compiled = new Map<string, TextPattern>();
const CACHE_LIMIT = 5_000;

/**
 * The pattern compiled by RE2 (case-insensitive, accents removed from the pattern as from the
 * text). Throws RegexSyntaxError when RE2 refuses it (bad syntax, or what only a backtracking
 * engine can do, such as back-references and look-arounds).
 */
export function compileRegex(source: string): TextPattern {
  let pattern = compiled.get(source);
  if (pattern) return pattern;
  let re: RE2JS;
  try {
    re = RE2JS.compile(regexSubject(source), RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    throw new RegexSyntaxError(error instanceof Error ? error.message : String(error));
  }
  // RE2 in JavaScript costs microseconds a test: a literal every match must contain is looked
  // for first (a plain substring search), and most lines of a statement end there
  const required = requiredLiteral(regexSubject(source));
  pattern = required ? { test: (subject) => subject.toLowerCase().includes(required) && re.test(subject) } : { test: (subject) => re.test(subject) };
  if (compiled.size >= CACHE_LIMIT) compiled.delete(compiled.keys().next().value!);
  compiled.set(source, pattern);
  return pattern;
}

/**
 * The longest run of plain ASCII letters, digits and spaces that every match of the pattern
 * contains (lower case), or undefined when none is certain. Conservative: a pattern with an
 * alternation gives none; characters inside groups or classes, escapes, and a character made
 * optional by ?, * or {..} end a run without counting.
 */
export function requiredLiteral(pattern: string): string | undefined {
  if (pattern.includes('|')) return undefined;
  let best = '';
  let run = '';
  let depth = 0;
  const end = () => {
    if (run.trim().length > best.trim().length) best = run;
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    const next = pattern[i + 1];
    if (ch === '\\') {
      end();
      i++;
      continue;
    }
    if (ch === '[') {
      end();
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) return undefined;
      i = close;
      continue;
    }
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth > 0 || !/[A-Za-z0-9 ]/.test(ch)) {
      end();
      continue;
    }
    if (next === '?' || next === '*' || next === '{') {
      end(); // this character may be absent
      continue;
    }
    run += ch.toLowerCase();
    if (next === '+') end(); // present, but the run does not continue past its repetitions
  }
  end();
  return best.trim().length >= 2 ? best : undefined;
}
