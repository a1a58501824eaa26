// Markdown as plain text, for clients that print an answer as it is (the reference web client
// shows the assistant's `answer` in a pre-wrapped box, so `**45 EUR**` would show its stars).
// marked's lexer reads the Markdown; this walks its tokens and keeps only the words: emphasis,
// code marks, headings' hashes and link syntax go; list items become lines ("• " or "1. "),
// table rows become lines of cells joined with " · ", blocks are separated by a blank line.
import { Lexer, type Token, type Tokens } from 'marked';

const BULLET = '• ';
const CELL_SEPARATOR = ' · ';
const INDENT = '  ';

/** The few character references a language model writes; the lexer leaves them as written. */
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };
const decodeEntities = (text: string) => text.replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name]);

const stripTags = (html: string) => html.replace(/<[^>]*>/g, '');

export function markdownToPlainText(markdown: string): string {
  return blocksText(Lexer.lex(markdown)).trim();
}

function blocksText(tokens: Token[]): string {
  return tokens
    .map(blockText)
    .filter((part) => part.trim() !== '')
    .join('\n\n');
}

function blockText(token: Token): string {
  switch (token.type) {
    case 'heading':
    case 'paragraph':
      return inlineText((token as Tokens.Heading | Tokens.Paragraph).tokens);
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inlineText(text.tokens) : decodeEntities(text.text);
    }
    case 'list':
      return listText(token as Tokens.List);
    case 'table':
      return tableText(token as Tokens.Table);
    case 'blockquote':
      return blocksText((token as Tokens.Blockquote).tokens);
    case 'code':
      return (token as Tokens.Code).text;
    case 'html':
      return decodeEntities(stripTags((token as Tokens.HTML).text)).trim();
    default: // space, hr, def: nothing to read
      return '';
  }
}

function listText(list: Tokens.List): string {
  const first = typeof list.start === 'number' ? list.start : 1;
  return list.items
    .map((item, index) => {
      const marker = list.ordered ? `${first + index}. ` : BULLET;
      // An item's own blocks (its text, a nested list) each on their own lines, nested ones indented.
      const [head = '', ...rest] = item.tokens.map(blockText).filter((part) => part !== '');
      const nested = rest.map((part) => part.replace(/^/gm, INDENT));
      return [marker + head, ...nested].join('\n');
    })
    .join('\n');
}

function tableText(table: Tokens.Table): string {
  const line = (cells: Tokens.TableCell[]) => cells.map((cell) => inlineText(cell.tokens).trim()).join(CELL_SEPARATOR);
  return [line(table.header), ...table.rows.map(line)].join('\n');
}

function inlineText(tokens: Token[]): string {
  return tokens.map(inlineTokenText).join('');
}

function inlineTokenText(token: Token): string {
  switch (token.type) {
    case 'strong':
    case 'em':
    case 'del':
      return inlineText((token as Tokens.Strong).tokens);
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? inlineText(text.tokens) : decodeEntities(text.text);
    }
    case 'codespan':
      return decodeEntities((token as Tokens.Codespan).text);
    case 'escape':
      return (token as Tokens.Escape).text;
    case 'br':
      return '\n';
    case 'link': {
      const link = token as Tokens.Link;
      const label = inlineText(link.tokens);
      // An address written as the link's own text is kept once; otherwise it follows the words.
      return label === link.href || link.href.startsWith('mailto:') || link.href === '' ? label : `${label} (${link.href})`;
    }
    case 'image':
      return (token as Tokens.Image).text;
    case 'html':
      return '';
    default:
      return 'raw' in token ? String(token.raw) : '';
  }
}
