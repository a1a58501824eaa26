// OFX and QFX statements → statement lines, for both dialects: 1.x SGML (a header of
// `KEY:VALUE` lines, leaf elements without closing tags) and 2.x XML. One reader handles
// both: a leaf's text ends at the next tag, and a closing tag closes every element opened
// after its own. One line per STMTTRN (bank and credit-card statements): TRNAMT (signed),
// DTPOSTED, NAME or PAYEE/NAME as counterparty, MEMO as description, FITID as reference,
// the statement's CURDEF (or the entry's CURRENCY/CURSYM), BANKACCTFROM/CCACCTFROM ACCTID.
import { calendarDay, cleanText, openingFromClosing, statementAmount, StatementError, type AccountBalances, type Statement, type StatementLine } from './statement-line.js';

interface Element {
  name: string;
  value?: string;
  children: Element[];
}

export function parseOfx(text: string): Statement {
  const start = text.search(/<OFX>/i);
  if (start < 0) throw new StatementError('The file is not an OFX statement (no <OFX> element).');
  // CDATA text (NAME and MEMO of some banks) is element text like any other
  const source = text.slice(start).replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, data: string) => data.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
  const root = readElements(source);
  const transactions = descendants(root, 'STMTTRN');
  const statements = [...descendants(root, 'STMTRS'), ...descendants(root, 'CCSTMTRS')];
  if (statements.length === 0) throw new StatementError('The OFX file holds no bank or credit-card statement (STMTRS).');

  let account: string | null = null;
  let currency: string | null = null;
  const lines: StatementLine[] = [];
  const balances: AccountBalances[] = [];
  for (const statement of statements) {
    const statementCurrency = currencyCode(leaf(statement, 'CURDEF'));
    const from = child(statement, 'BANKACCTFROM') ?? child(statement, 'CCACCTFROM');
    const statementAccount = cleanText(from && leaf(from, 'ACCTID'));
    account ??= statementAccount;
    currency ??= statementCurrency;
    const entries = descendants(statement, 'STMTTRN').map((entry) => ({ ...entryLine(entry, lines.length, statementCurrency), account: statementAccount }));
    lines.push(...entries);
    const ledger = child(statement, 'LEDGERBAL');
    const closing = statementAmount(ledger && leaf(ledger, 'BALAMT'))?.toFixed() ?? null;
    balances.push({
      account: statementAccount,
      currency: statementCurrency,
      kind: statement.name === 'CCSTMTRS' ? 'credit_card' : 'bank',
      opening_balance: closing === null ? null : openingFromClosing(closing, entries),
      closing_balance: closing,
      closing_date: ofxDate(ledger && leaf(ledger, 'DTASOF')),
    });
  }
  if (transactions.length !== lines.length) throw new StatementError('The OFX file has transactions outside of a statement.');
  return { account, currency, lines, balances };
}

function entryLine(entry: Element, position: number, statementCurrency: string | null): StatementLine {
  const amount = statementAmount(leaf(entry, 'TRNAMT'));
  if (!amount) throw new StatementError(`Transaction ${position + 1} of the OFX statement has no readable amount (TRNAMT).`);
  const posted = leaf(entry, 'DTPOSTED') ?? leaf(entry, 'DTUSER');
  const payee = child(entry, 'PAYEE');
  const entryCurrency = child(entry, 'CURRENCY') ?? child(entry, 'ORIGCURRENCY');
  const counterparty = cleanText(leaf(entry, 'NAME') ?? (payee && leaf(payee, 'NAME')));
  return {
    date: ofxDate(posted),
    amount: amount.toFixed(),
    currency: currencyCode(entryCurrency && leaf(entryCurrency, 'CURSYM')) ?? statementCurrency,
    description: cleanText(leaf(entry, 'MEMO')) ?? counterparty,
    counterparty,
    reference: cleanText(leaf(entry, 'FITID') ?? leaf(entry, 'REFNUM') ?? leaf(entry, 'CHECKNUM')),
  };
}

/** Deeper than any real statement (OFX nests about ten levels); deeper is refused, not recursed into. */
const MAX_DEPTH = 64;

/** Reads the tags into a tree; `<?...?>` and `<!...>` are skipped, entities decoded. */
function readElements(source: string): Element {
  const root: Element = { name: '#root', children: [] };
  const stack: Element[] = [root];
  const top = () => stack[stack.length - 1];
  const tag = /<([^>]*)>/g;
  let last = 0;
  let match: RegExpExecArray | null;
  const takeText = (end: number) => {
    const value = decode(source.slice(last, end)).trim();
    if (value === '') return;
    const open = top();
    if (open === root) throw new StatementError('The OFX file has text outside of its elements.');
    open.value = value;
  };
  while ((match = tag.exec(source)) !== null) {
    takeText(match.index);
    last = tag.lastIndex;
    const body = match[1].trim();
    if (body.startsWith('?') || body.startsWith('!')) continue;
    if (body.startsWith('/')) {
      const name = body.slice(1).trim().toUpperCase();
      const at = stack.map((e) => e.name).lastIndexOf(name);
      if (at <= 0) throw new StatementError(`The OFX file is malformed: </${name}> closes nothing.`);
      stack.length = at;
      continue;
    }
    const selfClosing = body.endsWith('/');
    const name = body.replace(/\/$/, '').split(/\s/)[0].toUpperCase();
    if (!/^[A-Z0-9._]+$/.test(name)) throw new StatementError(`The OFX file is malformed: <${body}> is not an element.`);
    // A leaf with a value is closed by whatever tag follows it (SGML leaves have no end tag).
    if (top().value !== undefined) stack.pop();
    const element: Element = { name, children: [] };
    top().children.push(element);
    if (!selfClosing) stack.push(element);
    if (stack.length > MAX_DEPTH) throw new StatementError(`The OFX file is malformed: its elements nest more than ${MAX_DEPTH} levels deep.`);
  }
  takeText(source.length);
  if (stack.length > 1 && stack.some((e) => e.name === 'OFX')) {
    // an SGML file may end without </OFX>; an aggregate left open is truncated content
    const open = stack.filter((e) => e.value === undefined && e.name !== 'OFX' && e !== root);
    if (open.length > 0) throw new StatementError(`The OFX file is truncated: <${open[open.length - 1].name}> is never closed.`);
  }
  return root;
}

function child(element: Element, name: string): Element | undefined {
  return element.children.find((c) => c.name === name);
}

function leaf(element: Element, name: string): string | undefined {
  return child(element, name)?.value;
}

function descendants(element: Element, name: string): Element[] {
  const found: Element[] = [];
  for (const c of element.children) {
    if (c.name === name) found.push(c);
    else found.push(...descendants(c, name));
  }
  return found;
}

function decode(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&');
}

function currencyCode(value: string | undefined): string | null {
  const code = value?.trim().toUpperCase();
  return code && /^[A-Z]{3}$/.test(code) ? code : null;
}

/** OFX datetime `YYYYMMDD[HHMMSS[.XXX]][[±h:TZ]]` → its calendar date as written. */
function ofxDate(value: string | undefined): string | null {
  const match = value && /^(\d{4})(\d{2})(\d{2})/.exec(value.trim());
  return match ? calendarDay(match[1], match[2], match[3]) : null;
}
