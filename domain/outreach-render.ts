// Outreach e-mails: the admin's Markdown message turned into a subject, a plain-text body and
// a complete HTML document, personalised per recipient. Pure: no SQL, no HTTP.
//
// Rendering happens in two steps so a campaign to every user renders the Markdown once:
// `renderOutreachTemplate` keeps the placeholders as `{{first_name}}`, `{{last_name}}`,
// `{{name}}`, `{{email}}` (normalised, wherever the admin wrote them in the subject or the
// body), and `personalize` fills them for one recipient: raw values in the subject and the
// text, HTML-escaped values in the HTML. db/outreach.ts does the same fill in SQL for a send.
import { escapeHtml, type RenderedEmail } from './email-templates.js';

export const PLACEHOLDERS = ['first_name', 'last_name', 'name', 'email'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

export interface OutreachContent {
  subject?: string | null;
  body?: string | null;
  cta_label?: string | null;
  cta_url?: string | null;
  image_url?: string | null;
}

export interface Recipient {
  first_name: string;
  last_name: string | null;
  email: string;
}

export type { RenderedEmail };

export interface RenderOptions {
  /** Shown in the footer ("Sent by <brand>"). */
  brand: string;
}

/** The placeholder values of one recipient; `name` is "first last", trimmed. */
export function placeholderValues(recipient: Recipient): Record<Placeholder, string> {
  const first = recipient.first_name ?? '';
  const last = recipient.last_name ?? '';
  return { first_name: first, last_name: last, name: `${first} ${last}`.trim(), email: recipient.email };
}

/** `{{ first_name }}`, `{{FIRST_NAME}}`... all written the same way. */
const PLACEHOLDER_PATTERN = new RegExp(`\\{\\{\\s*(${PLACEHOLDERS.join('|')})\\s*\\}\\}`, 'gi');

/**
 * A message ready for `personalize`. `text` and `html` hold the normalised placeholders of the
 * subject and body; the button's own text is `textButton` (appended after filling) and is
 * entity-encoded in `html`, because placeholders are not filled in button fields.
 */
export interface OutreachTemplate extends RenderedEmail {
  textButton: string;
}

/** Fills the normalised placeholders of a template in one pass (a value is never re-read as a placeholder). */
export function personalize(template: OutreachTemplate, recipient: Recipient): RenderedEmail {
  const values = placeholderValues(recipient);
  const fill = (text: string, encode: (value: string) => string) =>
    text.replace(PLACEHOLDER_PATTERN, (_match, key: string) => encode(values[key.toLowerCase() as Placeholder]));
  return {
    subject: fill(template.subject, (v) => v),
    text: fill(template.text, (v) => v) + template.textButton,
    html: fill(template.html, escapeHtml),
  };
}

/** Subject, text and HTML with normalised placeholders, ready for `personalize`. */
export function renderOutreachTemplate(content: OutreachContent, options: RenderOptions): OutreachTemplate {
  const subject = normalizePlaceholders(stripControls(content.subject ?? '').trim()) || 'Subject';
  const body = normalizePlaceholders(stripControls(content.body ?? ''));
  const cta = content.cta_label && content.cta_url && safeUrl(content.cta_url) ? { label: content.cta_label, url: content.cta_url } : undefined;
  const image = content.image_url && safeUrl(content.image_url) ? content.image_url : undefined;
  return {
    subject,
    text: `${stripRawHtml(body).trim()}\n`,
    textButton: cta ? `\n${cta.label}: ${cta.url}\n` : '',
    html: htmlDocument({ subject, bodyHtml: markdownToHtml(body), cta, image, brand: options.brand }),
  };
}

/** Preview and send render the same way: the template, personalised. */
export function renderOutreach(content: OutreachContent, recipient: Recipient, options: RenderOptions): RenderedEmail {
  return personalize(renderOutreachTemplate(content, options), recipient);
}

function normalizePlaceholders(text: string): string {
  return text.replace(PLACEHOLDER_PATTERN, (_match, key: string) => `{{${key.toLowerCase()}}}`);
}

/** Control characters have no place in a message (and \u0001 marks placeholders while rendering). */
function stripControls(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

/** Links and images only to http(s) and mailto addresses; `javascript:` and friends are dropped. */
export function safeUrl(url: string): boolean {
  const trimmed = url.trim();
  if (/^(https?:)?\/\//i.test(trimmed) || /^mailto:/i.test(trimmed)) return true;
  // A relative address has no scheme at all.
  return !/^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !/^[\s\u0000-\u001f]/.test(url);
}

// ------------------------------------------------------------------------------ Markdown

/** Raw HTML is not allowed in the message: tags and comments are removed, their text stays. */
function stripRawHtml(text: string): string {
  return text.replace(/<!--[\s\S]*?-->/g, '').replace(/<\/?[a-zA-Z][^<>]*>/g, '');
}

const MAX_QUOTE_DEPTH = 8;

/**
 * A small, safe Markdown subset: ATX headings, paragraphs, hard breaks, block quotes, bullet
 * and numbered lists, fenced code, rules; inline code, bold, italics, links, autolinks.
 * Everything is HTML-escaped; links with an unsafe scheme keep only their text.
 */
export function markdownToHtml(markdown: string, quoteDepth = 0): string {
  // Autolinks (<https://...>) become ordinary links before raw HTML is stripped.
  const source = stripRawHtml(markdown.replace(/<((?:https?:\/\/|mailto:)[^<>\s]+)>/gi, '[$1]($1)'));
  const lines = source.split('\n');
  const out: string[] = [];
  let paragraph: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | undefined;
  let quote: string[] = [];

  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map((line, i) => inline(line, i < paragraph.length - 1)).join('\n')}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.tag}>${list.items.map((item) => `<li>${inline(item, false)}</li>`).join('')}</${list.tag}>`);
    list = undefined;
  };
  const flushQuote = () => {
    if (quote.length > 0) out.push(`<blockquote>${markdownToHtml(quote.join('\n'), quoteDepth + 1)}</blockquote>`);
    quote = [];
  };
  const flushAll = () => {
    flushParagraph();
    flushList();
    flushQuote();
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s{0,3}(```|~~~)/.exec(line);
    if (fence) {
      flushAll();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].trimStart().startsWith(fence[1]); i++) code.push(lines[i]);
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    // Deeper quotes stay text: each level is a recursion, and 5000 of them overflow the stack.
    if (quoteDepth < MAX_QUOTE_DEPTH && /^\s*>/.test(line)) {
      flushParagraph();
      flushList();
      quote.push(line.replace(/^\s*>\s?/, ''));
      continue;
    }
    flushQuote();
    if (line.trim() === '') {
      flushParagraph();
      flushList();
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flushAll();
      out.push(`<h${heading[1].length}>${inline(heading[2], false)}</h${heading[1].length}>`);
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flushAll();
      out.push('<hr>');
      continue;
    }
    const bullet = /^\s{0,3}[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/.exec(line);
    const item = bullet ?? numbered;
    if (item) {
      flushParagraph();
      const tag = bullet ? 'ul' : 'ol';
      if (list && list.tag !== tag) flushList();
      (list ??= { tag, items: [] }).items.push(item[1]);
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    flushList();
    paragraph.push(line);
  }
  flushAll();
  return out.join('\n');
}

/** Inline Markdown of one line; `hardBreak` allows a trailing "  " or "\" to end in <br>. */
function inline(line: string, hardBreak: boolean): string {
  let text = line;
  let breakAfter = false;
  if (hardBreak && (/ {2,}$/.test(text) || /\\$/.test(text))) {
    breakAfter = true;
    text = text.replace(/( {2,}|\\)$/, '');
  }
  // Code spans and links are cut out first so their contents are not read as emphasis.
  const held: string[] = [];
  const hold = (html: string) => `\u0001${held.push(html) - 1}\u0001`;
  text = text.replace(/`([^`]+)`/g, (_m, code: string) => hold(`<code>${escapeHtml(code)}</code>`));
  text = text.replace(/!?\[([^\]]*)\]\(\s*((?:[^()\s]|\([^()\s]*\))+)(?:\s+"[^"]*")?\s*\)/g, (_m, label: string, url: string) =>
    hold(safeUrl(url) ? `<a href="${linkTarget(url)}">${emphasis(escapeHtml(label))}</a>` : emphasis(escapeHtml(label))),
  );
  // Placeholders contain underscores; they must not be read as emphasis either.
  text = text.replace(PLACEHOLDER_PATTERN, (match) => hold(match));
  let html = emphasis(escapeHtml(text));
  html = html.replace(/\u0001(\d+)\u0001/g, (_m, index: string) => held[Number(index)]);
  html = html.replace(/\u0001(\d+)\u0001/g, (_m, index: string) => held[Number(index)]);
  return breakAfter ? `${html}<br>` : html;
}

/**
 * A link's address for the href. Placeholders are filled there only after an explicit safe
 * scheme: a filled value (a recipient's own name) must never decide the scheme, or
 * `[x]({{first_name}})` would become `javascript:` for a user named so.
 */
function linkTarget(url: string): string {
  return /^(https?:\/\/|mailto:)/i.test(url.trim()) ? escapeHtml(url) : escapeLiteral(url);
}

function emphasis(html: string): string {
  return html
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '<strong>$2</strong>')
    .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\*)/g, '$1<em>$2</em>')
    .replace(/(^|[^_\w])_(?=\S)([^_]*?\S)_(?![_\w])/g, '$1<em>$2</em>');
}

// ------------------------------------------------------------------------------ layout

interface Layout {
  subject: string;
  bodyHtml: string;
  cta?: { label: string; url: string };
  image?: string;
  brand: string;
}

function htmlDocument({ subject, bodyHtml, cta, image, brand }: Layout): string {
  const title = escapeHtml(subject); // its placeholders stay intact for personalize()
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    '</head>',
    '<body style="margin:0;padding:0;background:#f4f5f7;font-family:Helvetica,Arial,sans-serif;color:#1f2933;">',
    `<div style="display:none;max-height:0;overflow:hidden;">${title}</div>`,
    '<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px 12px;">',
    '<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;background:#ffffff;border-radius:8px;">',
    image ? `<tr><td><img src="${escapeLiteral(image)}" alt="" width="600" style="display:block;width:100%;max-width:600px;border-radius:8px 8px 0 0;"></td></tr>` : '',
    '<tr><td style="padding:24px 32px;font-size:16px;line-height:1.5;">',
    bodyHtml,
    cta
      ? `<p style="margin:24px 0;"><a href="${escapeLiteral(cta.url)}" style="display:inline-block;padding:12px 24px;background:#2563eb;color:#ffffff;text-decoration:none;border-radius:6px;">${escapeLiteral(cta.label)}</a></p>`
      : '',
    '</td></tr>',
    `<tr><td style="padding:16px 32px;font-size:12px;color:#7b8794;border-top:1px solid #e4e7eb;">Sent by ${escapeHtml(brand)}.</td></tr>`,
    '</table>',
    '</td></tr></table>',
    '</body>',
    '</html>',
  ]
    .filter(Boolean)
    .join('\n');
}

/** Escaped, with braces as entities: text that `personalize` must leave as written. */
function escapeLiteral(text: string): string {
  return escapeHtml(text).replace(/\{/g, '&#123;').replace(/\}/g, '&#125;');
}
