// Text as the local assistant reads it: folded (lower case, accents and apostrophes dropped,
// typographic spaces made plain) so that "Déjà", "deja" and "DÉJÀ" read alike, and cut into
// word tokens with their positions so that a match can be removed from the sentence.

/** Lower case without accents; curly apostrophes become straight ones; odd spaces become plain. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .replace(/[\u00a0\u202f\u2009]/g, ' ')
    .toLowerCase();
}

export interface Token {
  /** The folded word, apostrophes removed ("mama's" -> "mamas"). */
  word: string;
  start: number;
  end: number;
}

/** The words of an already folded text, with their character positions. */
export function tokenize(folded: string): Token[] {
  const tokens: Token[] = [];
  for (const match of folded.matchAll(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu)) {
    tokens.push({ word: match[0].replace(/'/g, ''), start: match.index, end: match.index + match[0].length });
  }
  return tokens;
}

/** The text with [start, end) blanked out (same length, so other positions stay valid). */
export function blank(text: string, start: number, end: number): string {
  return text.slice(0, start) + ' '.repeat(end - start) + text.slice(end);
}
