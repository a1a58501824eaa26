// CAMT.053 (ISO 20022 bank-to-customer statement) XML → statement lines. One line per
// `Stmt/Ntry`: the amount with its `Ccy`, signed by `CdtDbtInd` (DBIT is money out), the
// booking date (`BookgDt`, the value date only when there is none), the counterparty (the
// debtor of a credit, the creditor of a debit), the remittance text and the bank reference.
// Balances (`Bal`) produce nothing. Namespace prefixes are ignored.
import { XMLParser } from 'fast-xml-parser';
import { calendarDay, cleanText, openingFromClosing, statementAmount, StatementError, type AccountBalances, type Statement, type StatementLine } from './statement-line.js';

type Node = Record<string, any>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ['Stmt', 'Ntry', 'TxDtls', 'Ustrd', 'NtryDtls', 'Bal'].includes(name),
});

export function parseCamt053(xml: string): Statement {
  let document: Node;
  try {
    document = parser.parse(xml, true) as Node;
  } catch (error) {
    throw new StatementError(`The CAMT.053 file is not well-formed XML: ${(error as Error).message}`);
  }
  const statements: Node[] | undefined = document?.Document?.BkToCstmrStmt?.Stmt;
  if (!Array.isArray(statements)) throw new StatementError('The XML file is not a CAMT.053 bank statement (no BkToCstmrStmt/Stmt).');

  let account: string | null = null;
  let currency: string | null = null;
  const lines: StatementLine[] = [];
  const balances = new Map<string, AccountBalances>();
  for (const statement of statements) {
    const acct = statement.Acct ?? {};
    const statementAccount = cleanText(text(acct.Id?.IBAN) ?? text(acct.Id?.Othr?.Id));
    const statementCurrency = currencyCode(text(acct.Ccy));
    account ??= statementAccount;
    currency ??= statementCurrency;
    const entries = (statement.Ntry ?? []).map((entry: Node, position: number) => ({ ...entryLine(entry, position, statementCurrency), account: statementAccount }));
    lines.push(...entries);
    addBalances(balances, statement, statementAccount, statementCurrency, entries);
  }
  return { account, currency, lines, balances: [...balances.values()] };
}

const OPENING = ['OPBD', 'PRCD'];
const CLOSING = ['CLBD'];

/** The statement's booked balances (Bal with Tp/CdOrPrtry/Cd), merged per account: the first opening, the last closing. */
function addBalances(byAccount: Map<string, AccountBalances>, statement: Node, account: string | null, currency: string | null, lines: StatementLine[]): void {
  const balances: Node[] = Array.isArray(statement.Bal) ? statement.Bal : statement.Bal ? [statement.Bal] : [];
  const find = (codes: string[]) => balances.find((b) => codes.includes(text(b.Tp?.CdOrPrtry?.Cd) ?? ''));
  const signed = (b: Node | undefined) => {
    const amount = b && statementAmount(text(b.Amt));
    return amount ? (text(b.CdtDbtInd) === 'DBIT' ? amount.abs().negated() : amount.abs()).toFixed() : null;
  };
  const closingNode = find(CLOSING);
  const closing = signed(closingNode);
  const opening = signed(find(OPENING)) ?? (closing === null ? null : openingFromClosing(closing, lines));
  const key = account ?? '';
  const known = byAccount.get(key);
  const closingDate = isoDate(text(closingNode?.Dt?.Dt) ?? text(closingNode?.Dt?.DtTm));
  if (known) {
    if (closing !== null) [known.closing_balance, known.closing_date] = [closing, closingDate];
    return;
  }
  byAccount.set(key, { account, currency, kind: 'bank', opening_balance: opening, closing_balance: closing, closing_date: closingDate });
}

function entryLine(entry: Node, position: number, statementCurrency: string | null): StatementLine {
  const amount = statementAmount(text(entry.Amt));
  if (!amount) throw new StatementError(`Entry ${position + 1} of the CAMT.053 statement has no readable amount.`);
  const indicator = text(entry.CdtDbtInd);
  if (indicator !== 'CRDT' && indicator !== 'DBIT') {
    throw new StatementError(`Entry ${position + 1} of the CAMT.053 statement has no credit/debit indicator (CdtDbtInd).`);
  }
  // CdtDbtInd is the direction of this booking, reversal or not (ISO 20022: CRDT with
  // RvslInd true undoes an earlier debit, so money comes back in); a reversal is only noted.
  const reversed = text(entry.RvslInd) === 'true';
  const outgoing = indicator === 'DBIT';
  const details: Node = entry.NtryDtls?.[0]?.TxDtls?.[0] ?? {};
  const parties: Node = details.RltdPties ?? {};
  const counterparty = outgoing ? partyName(parties.Cdtr) : partyName(parties.Dbtr);
  const remittance = (details.RmtInf?.Ustrd ?? []).map((line: unknown) => text(line)).filter(Boolean).join(' ');
  return {
    date: isoDate(text(entry.BookgDt?.Dt) ?? text(entry.BookgDt?.DtTm) ?? text(entry.ValDt?.Dt) ?? text(entry.ValDt?.DtTm)),
    amount: (outgoing ? amount.abs().negated() : amount.abs()).toFixed(),
    currency: currencyCode(entry.Amt?.['@Ccy']) ?? statementCurrency,
    description: withReversal(cleanText(remittance) ?? cleanText(text(entry.AddtlNtryInf)) ?? cleanText(text(details.AddtlTxInf)), reversed),
    counterparty,
    reference: cleanText(text(entry.AcctSvcrRef) ?? text(details.Refs?.AcctSvcrRef) ?? text(details.Refs?.EndToEndId)),
  };
}

function withReversal(description: string | null, reversed: boolean): string | null {
  return reversed ? `Reversal: ${description ?? 'earlier entry'}` : description;
}

/** The name of a Dbtr/Cdtr (version 2: `Nm` directly; version 8+: under `Pty`). */
function partyName(party: Node | undefined): string | null {
  return cleanText(text(party?.Nm) ?? text(party?.Pty?.Nm));
}

/** The text of an element, whether it came as a value or as a node with attributes. */
function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'object') return text((value as Node)['#text']);
  const result = String(value).trim();
  return result === '' || result === 'NOTPROVIDED' ? undefined : result;
}

function currencyCode(value: unknown): string | null {
  const code = text(value)?.toUpperCase();
  return code && /^[A-Z]{3}$/.test(code) ? code : null;
}

function isoDate(value: string | undefined): string | null {
  const match = value && /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  return match ? calendarDay(match[1], match[2], match[3]) : null;
}
