// Bank CSV exports (pure): each fixture of test/fixtures/statements read with the right
// encoding, delimiter, header, mapping, date format and decimal separator; the values that
// fool a naive reader (IBANs, preamble and trailer lines, mixed separators) read correctly.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { exportSource, headerRole, ownAccountColumn } from '../../domain/statements/csv-columns.js';
import { readBankCsv } from '../../domain/statements/csv-statement.js';
import { notImportableReason } from '../../domain/statements/suggestions.js';
import { inferDateFormat, inferDecimalSeparator, readAmount } from '../../domain/statements/csv-values.js';
import { decodeStatementText, looksBinary } from '../../domain/statements/text-encoding.js';

const read = (name: string) => {
  const result = readBankCsv(decodeStatementText(readFileSync(new URL(`../fixtures/statements/${name}`, import.meta.url))));
  if (!result) throw new Error(`${name} was not read as a bank export`);
  return result;
};
const rows = (name: string) => read(name).drafts.map((d) => [d.date, d.type, d.amount, d.currency, d.description]);

t.test('Sparkasse: Windows-1252, semicolons, dd.mm.yy, IBAN columns never amounts', async (t) => {
  const { reading } = read('sparkasse-de.csv');
  t.match(reading, { encoding: 'windows-1252', delimiter: ';', header_row: 1, date_format: 'DD.MM.YY', decimal_separator: ',', mapping: { date: 1, amount: 14, description: 4, party: 11, currency: 15, wallet: 0 } });
  t.same(rows('sparkasse-de.csv'), [
    ['2026-03-02', 'expense', '89.37', 'EUR', 'Strom März Kd-Nr 4711'],
    ['2026-03-13', 'income', '2450', 'EUR', 'Gehalt März'],
    ['2026-03-15', 'expense', '4.8', 'EUR', 'Bäckerei Müller, Köln'],
  ]);
  t.equal(read('sparkasse-de.csv').drafts[0].wallet, 'DE89370400440532013000', 'the own account names the wallet');
});

t.test('DKB: a 12-line Latin-1 preamble is skipped; account and currency come from it', async (t) => {
  const { reading, drafts } = read('dkb-de.csv');
  t.match(reading, { header_row: 9, account: 'DE12120300000012345678', currency: 'EUR', date_format: 'DD.MM.YYYY' });
  t.same(drafts.map((d) => [d.amount, d.type, d.party]), [['1150', 'expense', 'Miete Hausverwaltung'], ['50', 'income', 'Erika Mustermann'], ['63.21', 'expense', 'REWE Markt']]);
});

t.test('French bank: BOM, CRLF, Débit/Crédit columns, space thousands, a balance trailer that is not a row', async (t) => {
  const { reading } = read('banque-fr.csv');
  t.match(reading, { encoding: 'utf-8', bom: true, header_row: 3, mapping: { debit: 3, credit: 4, amount: null }, skipped_rows: 4 });
  t.same(rows('banque-fr.csv'), [
    ['2026-03-04', 'expense', '72.4', null, 'PRLV SEPA EDF'],
    ['2026-03-10', 'income', '1850', null, 'VIR SALAIRE MARS'],
    ['2026-03-21', 'expense', '45.9', null, 'CB CARREFOUR 20/03'],
  ]);
});

t.test('ING NL: yyyymmdd, Af/Bij marker column, currency from the amount header', async (t) => {
  t.match(read('ing-nl.csv').reading, { date_format: 'YYYYMMDD', mapping: { marker: 5, amount: 6, party: 1, description: 8 }, currency: 'EUR' });
  t.same(rows('ing-nl.csv').map((r) => [r[1], r[2]]), [['expense', '23.45'], ['income', '1250'], ['expense', '4.6']]);
});

t.test('ING DE: the "Rente" line has six fields of seven; its amount and currency are read from the right', async (t) => {
  const { reading, drafts } = read('ing-de.csv');
  t.match(reading, { encoding: 'windows-1252', delimiter: ';', header_row: 11, date_format: 'DD.MM.YYYY', decimal_separator: ',', account: 'DE89500105175407324931', currency: 'EUR', mapping: { date: 0, party: 2, description: 4, amount: 5, currency: 6 } });
  t.same(rows('ing-de.csv'), [
    ['2026-10-30', 'income', '1312.45', 'EUR', 'Deutsche Rentenversicherung'],
    ['2026-10-28', 'expense', '54.12', 'EUR', 'REWE SAGT DANKE 43215678'],
    ['2026-10-15', 'expense', '86', 'EUR', 'Abschlag Strom Oktober Kd-Nr 4711'],
    ['2026-10-01', 'expense', '950', 'EUR', 'Miete Oktober Whg 3 OG links'],
  ]);
  t.match(drafts[0].warnings, [/6 fields where its header has 7: its amount and what follows were read from the right/]);
  t.same(drafts.slice(1).flatMap((d) => d.warnings), []);

  const header = 'Buchung;Valuta;Auftraggeber/Empfänger;Buchungstext;Verwendungszweck;Betrag;Währung;Notiz';
  const csv = (...lines: string[]) => readBankCsv({ text: [header, ...lines].join('\n'), encoding: 'utf-8', bom: false })!.drafts;
  const [trailingDropped, unaligned] = csv('02.10.2026;02.10.2026;Bäckerei;Lastschrift;Brötchen;-3,20;EUR', '03.10.2026;03.10.2026;Kiosk;Lastschrift;-2,50;Zeitung;x');
  t.match(trailingDropped, { amount: '3.2', type: 'expense', currency: 'EUR', description: 'Brötchen', warnings: [] }, 'a row short of its last, empty field is read from the left as before');
  const [misaligned] = csv('03.10.2026;03.10.2026;Kiosk;-2,50;Zeitung;x;EUR');
  t.match(misaligned, { amount: null, warnings: [/7 fields where its header has 8, and its last ones do not line up with the amount column/] }, 'lined up neither way: no amount, and the reason');
  t.equal(unaligned.amount, null);
});

t.test('PayPal: quoted decimal commas with a comma delimiter; currency per row', async (t) => {
  t.same(rows('paypal-de.csv').map((r) => [r[1], r[2], r[3]]), [['expense', '10.99', 'EUR'], ['income', '1025', 'EUR'], ['expense', '19.99', 'USD']]);
});

t.test('US bank: mm/dd/yyyy inferred from the column; a balance column is not the amount', async (t) => {
  t.match(read('chase-us.csv').reading, { date_format: 'MM/DD/YYYY', mapping: { amount: 3 } });
  t.same(rows('chase-us.csv').map((r) => [r[0], r[2]]), [['2026-03-02', '5.75'], ['2026-03-13', '2500'], ['2026-03-20', '1200']]);
});

t.test('UTF-16 LE, tabs, apostrophe thousands, credit/debit in CHF; Spanish, Portuguese; no header at all', async (t) => {
  t.match(read('postfinance-ch.csv').reading, { encoding: 'utf-16le', delimiter: '\t', currency: 'CHF', mapping: { debit: 3, credit: 2 } });
  t.same(rows('postfinance-ch.csv').map((r) => [r[1], r[2]]), [['expense', '84.3'], ['income', '6250']]);
  t.same(rows('banco-es.csv').map((r) => [r[0], r[2]]), [['2026-03-02', '39.9'], ['2026-03-14', '1800']]);
  t.equal(read('banco-es.csv').drafts[0].wallet, 'ES9121000418450200051332');
  t.same(rows('banco-pt.csv').map((r) => [r[1], r[2], r[4]]), [['expense', '27.35', 'Pagamento Continente'], ['income', '500', 'Transferência recebida']]);
  t.match(read('headerless.csv').reading, { header_row: null, mapping: { date: 0, description: 1, amount: 2 } });
  t.equal(read('headerless.csv').drafts.length, 3);
});

t.test('a corrected mapping and date format replace the inferred ones', async (t) => {
  const decoded = decodeStatementText(readFileSync(new URL('../fixtures/statements/ing-nl.csv', import.meta.url)));
  const again = readBankCsv(decoded, { mapping: { description: 7 } })!;
  t.equal(again.drafts[0].description, 'Betaalautomaat');
  t.throws(() => readBankCsv(decoded, { mapping: { date: null } }), /needs a date column/);
});

t.test('values: amounts in every convention, dates by column, binary text', async (t) => {
  t.equal(readAmount('1.234,56', ',')?.toFixed(), '1234.56');
  t.equal(readAmount('1,234.56', '.')?.toFixed(), '1234.56');
  t.equal(readAmount("1'234.56", '.')?.toFixed(), '1234.56');
  t.equal(readAmount('1 234,56 €', ',')?.toFixed(), '1234.56');
  t.equal(readAmount('(12.00)', '.')?.toFixed(), '-12');
  t.equal(readAmount('12,50-', ',')?.toFixed(), '-12.5');
  t.equal(readAmount('DE89370400440532013000', '.'), undefined);
  t.equal(inferDecimalSeparator(['1.234,56', '12,00']), ',');
  t.match(inferDateFormat(['03/04/2026', '03/13/2026']), { order: 'mdy' });
  t.match(inferDateFormat(['03/04/2026', '13/04/2026']), { order: 'dmy' });
  t.match(inferDateFormat(['2026-03-04 14:05', '2026-03-05T10:00:00Z']), { order: 'ymd' });
  t.ok(looksBinary('\u0001\u0002\u0003PK\u0000'));
  t.notOk(looksBinary('Datum;Betrag\n01.02.2026;1,00\n'));
});

t.test('the holder\'s own account column is the wallet; a counterparty\'s account column never is', async (t) => {
  const own = ['IBAN Kontoinhaber', 'IBAN Auftragskonto', 'Auftragskonto', 'Eigene Kontonummer', 'IBAN du compte', 'Account'];
  const theirs = ['IBAN Zahlungsbeteiligter', 'Empfänger IBAN', 'Kontonummer/IBAN', 'Tegenrekening', 'IBAN'];
  for (const name of own) t.equal(headerRole(name)?.role, 'wallet', name);
  for (const name of theirs) t.equal(headerRole(name)?.role, 'account', name);
  // named either way by banks: the wallet only when every row names one account
  const header = ['Date', 'Kontonummer', 'Amount'];
  t.equal(ownAccountColumn(header, [['2026-03-01', '1234567890', '-5'], ['2026-03-02', '1234 567890', '7']]), 1, 'one account on every row');
  t.equal(ownAccountColumn(header, [['2026-03-01', '1234567890', '-5'], ['2026-03-02', '9876543210', '7']]), null, 'a payee\'s account per row');
  t.equal(exportSource(['datum', 'uhrzeit', 'zeitzone', 'name', 'brutto', 'gebuhr', 'netto']), 'PayPal');
  t.equal(exportSource(['buchungstag', 'betrag']), null);
});

t.test('a fee column becomes the row\'s fee; lines of amount 0 are notices, not transactions', async (t) => {
  t.same(read('paypal-de.csv').drafts.map((d) => d.fee), [null, '15.03', null], 'Gebühr 0,00 is no fee; -15,03 is one');
  const vr = read('vr-bank-de.csv').drafts;
  t.same(vr.map((d) => notImportableReason(d.amount, d.description)), [null, null, 'A closing notice of the account (amount 0), not a transaction.', null]);
  t.equal(notImportableReason('0', 'Neue Preis- und Leistungsbedingungen'), 'A notice with amount 0, not a transaction.');
  t.equal(notImportableReason(null, null), null, 'an unreadable amount is a failure to fix, not a notice');
});
