// The text of an uploaded statement, whatever encoding the bank wrote it in: a byte-order
// mark decides (UTF-8, UTF-16 LE/BE); without one, NUL bytes at every other position mean
// UTF-16, valid UTF-8 is UTF-8, and anything else is Windows-1252 (the superset of Latin-1
// that older European exports and OFX CHARSET:1252 use). Decoded with Node's TextDecoder.

import { isUtf8 } from 'node:buffer';

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
  bom: boolean;
}

/** The share of control characters above which decoded "text" is a binary file. */
const BINARY_CONTROL_SHARE = 0.01;

/** The encoding of the bytes (as decodeStatementText decides it) and where the text starts after a BOM, without decoding them. */
export function encodingOf(data: Uint8Array): { encoding: TextEncoding; bom: boolean; start: number } {
  const [a, b, c] = data;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { encoding: 'utf-8', bom: true, start: 3 };
  if (a === 0xff && b === 0xfe) return { encoding: 'utf-16le', bom: true, start: 2 };
  if (a === 0xfe && b === 0xff) return { encoding: 'utf-16be', bom: true, start: 2 };
  const utf16 = utf16WithoutMark(data);
  if (utf16) return { encoding: utf16, bom: false, start: 0 };
  return { encoding: isUtf8(data) ? 'utf-8' : 'windows-1252', bom: false, start: 0 };
}

export function decodeStatementText(data: Uint8Array): DecodedText {
  const [a, b, c] = data;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { text: decode('utf-8', data.subarray(3)), encoding: 'utf-8', bom: true };
  if (a === 0xff && b === 0xfe) return { text: decode('utf-16le', data.subarray(2)), encoding: 'utf-16le', bom: true };
  if (a === 0xfe && b === 0xff) return { text: decode('utf-16be', data.subarray(2)), encoding: 'utf-16be', bom: true };
  const utf16 = utf16WithoutMark(data);
  if (utf16) return { text: decode(utf16, data), encoding: utf16, bom: false };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(data), encoding: 'utf-8', bom: false };
  } catch {
    return { text: decode('windows-1252', data), encoding: 'windows-1252', bom: false };
  }
}

function decode(encoding: TextEncoding, data: Uint8Array): string {
  return new TextDecoder(encoding).decode(data);
}

/** UTF-16 text of Latin script has a NUL in (nearly) every other byte; which half says the byte order. */
function utf16WithoutMark(data: Uint8Array): TextEncoding | undefined {
  const sample = data.subarray(0, Math.min(data.length, 4096) & ~1);
  if (sample.length < 4) return undefined;
  let evenNuls = 0;
  let oddNuls = 0;
  for (let i = 0; i < sample.length; i += 2) {
    if (sample[i] === 0) evenNuls++;
    if (sample[i + 1] === 0) oddNuls++;
  }
  const pairs = sample.length / 2;
  if (oddNuls > 0.8 * pairs && evenNuls < 0.1 * pairs) return 'utf-16le';
  if (evenNuls > 0.8 * pairs && oddNuls < 0.1 * pairs) return 'utf-16be';
  return undefined;
}

/** Whether decoded text is really a binary file (NULs or many control characters). */
export function looksBinary(text: string): boolean {
  const sample = text.slice(0, 8192);
  if (sample.length === 0) return false;
  let controls = 0;
  for (let i = 0; i < sample.length; i++) {
    const code = sample.charCodeAt(i);
    if (code === 0) return true;
    if ((code < 32 && code !== 9 && code !== 10 && code !== 13) || code === 0xfffd) controls++;
  }
  return controls / sample.length > BINARY_CONTROL_SHARE;
}
