// What the columns of a bank's CSV export mean: header names in the languages of the banks
// people use (EN, DE, FR, ES, IT, NL, PT), compared without case, accents, spaces or
// punctuation, with a fallback that infers a column's role from its values. An IBAN,
// account, balance or reference column is never taken for an amount.

export type ColumnRole = 'date' | 'amount' | 'debit' | 'credit' | 'marker' | 'description' | 'party' | 'currency' | 'reference' | 'wallet' | 'category' | 'fee';

/** The roles the reader uses and the session shows, in the order a mapping lists them. */
export const COLUMN_ROLES: readonly ColumnRole[] = ['date', 'amount', 'debit', 'credit', 'marker', 'description', 'party', 'currency', 'reference', 'wallet', 'category', 'fee'];

/**
 * Columns that look numeric but are never money moved: accounts, balances, ids. `own_account`:
 * a name banks give the holder's own account as often as the counterparty's ("Kontonummer" is
 * the payee's in one Sparkasse layout, "Account number" the payee's at N26), so the column is
 * the wallet only when every row names the same account (see ownAccountColumn).
 */
export type IgnoredRole = 'account' | 'balance' | 'own_account';

/** Header names per role, normalised (see headerKey), best first: the first column matching an earlier name wins. */
const HEADER_NAMES: Record<ColumnRole | IgnoredRole, string[]> = {
  date: [
    'date', 'bookingdate', 'transactiondate', 'postingdate', 'posteddate', 'completeddate', 'starteddate', 'datetransaction',
    'buchungstag', 'buchungsdatum', 'buchung', 'datum', 'belegdatum', 'umsatzdatum',
    'datedoperation', 'dateoperation', 'datedecomptabilisation', 'datecomptable',
    'fecha', 'fechaoperacion', 'fechadeoperacion', 'fechacontable',
    'data', 'dataoperazione', 'datacontabile', 'datamovimento', 'datalancamento', 'datadelancamento', 'datadomovimento',
    'boekdatum', 'transactiedatum', 'boekingsdatum',
    'valutadatum', 'valuedate', 'wertstellung', 'datedevaleur', 'datevaleur', 'fechavalor', 'datavaluta', 'rentedatum', 'valuta',
  ],
  amount: [
    'amount', 'transactionamount', 'betrag', 'umsatz', 'buchungsbetrag', 'montant', 'montantoperation', 'importe', 'importo',
    'bedrag', 'transactiebedrag', 'valor', 'montante', 'brutto', 'gross', 'net', 'netto', 'sum', 'summe', 'value',
  ],
  debit: ['debit', 'debits', 'debet', 'soll', 'lastschrift', 'belastung', 'ausgang', 'ausgaben', 'debito', 'cargo', 'cargos', 'addebiti', 'addebito', 'uscite', 'withdrawal', 'withdrawals', 'moneyout', 'paidout', 'out', 'afschrijving'],
  credit: ['credit', 'credits', 'haben', 'gutschrift', 'eingang', 'einnahmen', 'credito', 'abono', 'abonos', 'accrediti', 'accredito', 'entrate', 'deposit', 'deposits', 'moneyin', 'paidin', 'in', 'bijschrijving'],
  marker: ['afbij', 'sollhaben', 'debitcredit', 'creditdebit', 'drcr', 'crdr', 'sh', 'creditdebitindicator', 'debitcreditindicator', 'cdindicator', 'dc', 'sens', 'signo'],
  description: [
    'description', 'verwendungszweck', 'buchungstext', 'beschreibung', 'libelle', 'libelleoperation', 'libelledeloperation', 'detail',
    'concepto', 'descripcion', 'descrizione', 'causale', 'omschrijving', 'mededelingen', 'descricao', 'historico',
    'memo', 'avisierungstext', 'details', 'narrative', 'purpose', 'transactiondetails', 'text', 'informationscomplementaires', 'remarks', 'notes',
  ],
  party: [
    'payee', 'party', 'counterparty', 'name', 'namezahlungsbeteiligter', 'merchant', 'beguenstigterzahlungspflichtiger', 'begunstigterzahlungspflichtiger',
    'auftraggeberempfaenger', 'auftraggeberempfanger', 'auftraggeberbegunstigter', 'auftraggeberbeguenstigter', 'empfaenger', 'empfanger', 'zahlungsempfaenger', 'zahlungsempfanger', 'zahlungsempfangerin', 'zahlungspflichtiger', 'glaubiger', 'nameempfaenger',
    'beneficiaire', 'tiers', 'nom', 'beneficiario', 'ordenante', 'beneficiarioordinante', 'naamomschrijving', 'naam', 'naamtegenpartij', 'tegenpartij', 'favorecido',
  ],
  currency: ['currency', 'waehrung', 'wahrung', 'devise', 'moneda', 'divisa', 'munt', 'moeda', 'curr', 'ccy'],
  reference: ['reference', 'referenz', 'kundenreferenz', 'mandatsreferenz', 'referencia', 'riferimento', 'referentie', 'transactionid', 'transaktionscode', 'fitid', 'id'],
  // the statement's own account (its IBAN names the wallet) or the wallet's name
  wallet: [
    'wallet', 'account', 'accountname', 'auftragskonto', 'ibanauftragskonto', 'ibankontoinhaber', 'kontoinhaberiban', 'eigenekontonummer', 'eigeneiban',
    'eigeneskonto', 'meinkonto', 'ibanducompte', 'moncompte', 'accountiban', 'ownaccount', 'rekening', 'konto', 'cuentapropia', 'contoordinante',
  ],
  category: ['category', 'kategorie', 'categorie', 'categoria', 'rubrik', 'rubrique'],
  // a fee charged on the entry beside its gross amount (PayPal's Gebühr/Fee, Revolut's Fee)
  fee: ['fee', 'fees', 'gebuhr', 'gebuehr', 'gebuhren', 'gebuehren', 'frais', 'comision', 'commissione', 'commissioni'],
  // the counterparty's account: never an amount, never the wallet
  account: [
    'iban', 'kontonummeriban', 'ibanzahlungsbeteiligter', 'ibanzahlungsempfanger', 'zahlungsempfangeriban', 'empfangeriban', 'ibanempfanger',
    'ibanauftraggeber', 'auftraggeberiban', 'ibanbegunstigter', 'gegenkonto', 'ibangegenkonto', 'ibandutiers', 'ibanbeneficiaire', 'counterpartyiban', 'payeeiban',
    'tegenrekening', 'tegenrekeningibanbban', 'cuenta', 'conto', 'conta', 'bic', 'swift', 'blz', 'bankleitzahl',
  ],
  own_account: ['kontonummer', 'accountnumber', 'accountnum', 'compte', 'numerodecompte', 'numerocompte'],
  balance: ['balance', 'saldo', 'guthaben', 'kontostand', 'solde', 'saldonamutatie', 'runningbalance', 'saldoapos', 'saldodisponible'],
};

const ROLE_ORDER: Array<ColumnRole | IgnoredRole> = ['account', 'balance', 'own_account', ...COLUMN_ROLES];

/** Lower case, accents and punctuation gone, a trailing currency unit dropped ("Betrag (EUR)" → "betrag"). */
export function headerKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/\((?:in\s+)?[a-z]{3}\)|\(\s*[€$£]\s*\)|[€$£]/g, '')
    .replace(/[^a-z0-9]/g, '');
}

/** The ISO code a header names as its unit ("Betrag (EUR)", "Amount in USD"), else null. */
export function headerCurrency(name: string): string | null {
  const match = /\((?:in\s+)?([A-Za-z]{3})\)|\bin\s+([A-Z]{3})\b|\s([A-Z]{3})$/.exec(name.trim());
  const code = (match?.[1] ?? match?.[2] ?? match?.[3])?.toUpperCase();
  if (code) return code;
  if (name.includes('€')) return 'EUR';
  if (name.includes('£')) return 'GBP';
  return null;
}

/** The role a header names, with its rank among that role's names (lower is better), or undefined. */
export function headerRole(name: string): { role: ColumnRole | IgnoredRole; rank: number } | undefined {
  const key = headerKey(name);
  if (key === '') return undefined;
  // "Gutschrift in CHF", "Betrag EUR": a unit after the name does not change it
  const unitless = key.replace(/(?:in)?(?:eur|usd|gbp|chf|sek|nok|dkk|pln|czk|huf|cad|aud)$/, '');
  for (const candidate of unitless === key || unitless === '' ? [key] : [key, unitless]) {
    for (const role of ROLE_ORDER) {
      const rank = HEADER_NAMES[role].indexOf(candidate);
      if (rank >= 0) return { role, rank };
    }
  }
  return undefined;
}

export type ColumnMapping = Record<ColumnRole, number | null>;

export const emptyMapping = (): ColumnMapping => ({ date: null, amount: null, debit: null, credit: null, marker: null, description: null, party: null, currency: null, reference: null, wallet: null, category: null, fee: null });

/** The mapping a header row names, best-ranked column per role; null when it has no date or no amount column. */
export function mappingFromHeader(header: string[]): ColumnMapping | null {
  const mapping = emptyMapping();
  const ranks = new Map<ColumnRole, number>();
  header.forEach((name, column) => {
    const found = headerRole(name);
    if (!found || found.role === 'account' || found.role === 'balance' || found.role === 'own_account') return;
    const role = found.role;
    if (mapping[role] === null || found.rank < ranks.get(role)!) {
      mapping[role] = column;
      ranks.set(role, found.rank);
    }
  });
  if (mapping.date === null) return null;
  if (mapping.amount === null && mapping.debit === null && mapping.credit === null) return null;
  return mapping;
}

/**
 * The holder's account among the columns named so ambiguously (own_account): the first whose
 * rows all name one account, or null. `rows` are a sample of the rows after the header.
 */
export function ownAccountColumn(header: string[], rows: string[][]): number | null {
  for (const [column, name] of header.entries()) {
    if (headerRole(name)?.role !== 'own_account') continue;
    const values = new Set(rows.map((row) => (row[column] ?? '').replace(/\s/g, '')).filter((value) => value !== ''));
    if (values.size === 1) return column;
  }
  return null;
}

/** Exports that name no account of their own, known by their columns: the wallet is named after them. */
const EXPORT_SOURCES: Array<{ name: string; names: string[][] }> = [
  // Datum, Uhrzeit, Zeitzone, Name, Typ, Status, Währung, Brutto, Gebühr, Netto, ... (or Date, Time, TimeZone, ... Gross, Fee, Net)
  { name: 'PayPal', names: [['zeitzone', 'timezone', 'fuseauhoraire'], ['brutto', 'gross', 'avantcommission', 'montantbrut']] },
  { name: 'Revolut', names: [['starteddate'], ['completeddate'], ['product']] },
  { name: 'Wise', names: [['transferwiseid']] },
];

/** The provider an export comes from, recognised by its header's names (see headerKey), or null. */
export function exportSource(headerKeys: string[]): string | null {
  const keys = new Set(headerKeys);
  return EXPORT_SOURCES.find((source) => source.names.every((anyOf) => anyOf.some((key) => keys.has(key))))?.name ?? null;
}

/** How many of a row's cells are known header names: the header row is the row with the most. */
export function headerScore(row: string[]): number {
  return row.filter((cell) => cell.trim() !== '' && headerRole(cell) !== undefined).length;
}

/** An IBAN (with or without spaces) or a bare account number: never an amount. */
export function looksLikeAccount(value: string): boolean {
  const compact = value.replace(/\s/g, '');
  return /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(compact) || /^\d{10,}$/.test(compact);
}

/** The first IBAN written in a text ("DE12 1203 ... / Girokonto"), spaces removed, or null. */
export function ibanIn(text: string): string | null {
  const match = /\b([A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?)\b/.exec(text);
  return match ? match[1].replace(/\s/g, '') : null;
}

/** A money amount as banks write it, in either decimal convention, with signs, units or markers. */
export function looksLikeAmount(value: string): boolean {
  const text = value.trim();
  if (text === '' || looksLikeAccount(text)) return false;
  return /^[(+-]?\s*(?:[A-Z]{3}\s*|[€$£]\s*)?[+-]?\d{1,3}(?:[.,'\s\u00a0\u202f]?\d{3})*(?:[.,]\d{1,4})?\s*(?:[A-Z]{3}|[€$£])?\s*-?\)?$/.test(text);
}

const DEBIT_MARKERS = new Set(['s', 'd', 'dr', 'db', 'debit', 'debet', 'af', '-', 'soll', 'debito', 'cargo', 'out']);
const CREDIT_MARKERS = new Set(['h', 'c', 'cr', 'credit', 'bij', '+', 'haben', 'credito', 'abono', 'in']);

/** A debit/credit marker cell read: true for money out, false for money in, undefined when not a marker. */
export function markerOut(value: string): boolean | undefined {
  const key = value.trim().toLowerCase();
  if (DEBIT_MARKERS.has(key)) return true;
  if (CREDIT_MARKERS.has(key)) return false;
  return undefined;
}
