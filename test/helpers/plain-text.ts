// What the plain-text tests of the assistant share.

/** Markdown's marks that must never reach a plain-text answer: bold, code, bullets, headings, pipe tables, quotes, links. */
export const MARKUP = /\*\*|__|`|^\s*[-*+] |^#{1,6} |^\s*\|.*\|\s*$|^\s*>|\]\(/m;
