// Native statement parsers (pure): CAMT.053 and OFX (SGML and XML) to statement lines, format
// detection from content, suggestion drafts, matching and duplicate rules.
import t from 'tap';
import { parseCamt053 } from '../../domain/statements/camt053.js';
import { findDuplicate, matchRecords, similarDescriptions, type ExistingTransaction } from '../../domain/statements/matching.js';
import { parseOfx } from '../../domain/statements/ofx.js';
import { detectStatementFormat, StatementError } from '../../domain/statements/statement-line.js';
import { draftsFromCsv, draftsFromProcessed, draftsFromStatement } from '../../domain/statements/suggestions.js';
import { CAMT053, OFX_SGML, OFX_XML } from '../helpers/statement-samples.js';

t.test('CAMT.053: one line per entry, signed by CdtDbtInd, booking date, counterparty, remittance', async (t) => {
  const statement = parseCamt053(CAMT053);
  t.equal(statement.account, 'DE89370400440532013000');
  t.equal(statement.currency, 'EUR');
  t.same(statement.lines, [
    { date: '2026-03-01', amount: '2500', currency: 'EUR', description: 'Salary March 2026', counterparty: 'ACME Payroll GmbH', reference: 'REF-CR-1', account: 'DE89370400440532013000' },
    { date: '2026-03-03', amount: '-42.15', currency: 'EUR', description: 'Card payment groceries', counterparty: 'City Grocer', reference: 'REF-DB-2', account: 'DE89370400440532013000' },
  ]);
});

t.test('CAMT.053: value date when there is no booking date; prefixed namespaces', async (t) => {
  const xml = CAMT053.replace('<BookgDt><Dt>2026-03-01</Dt></BookgDt>', '').replace(/<(\/?)(\w)/g, '<$1c:$2').replace('<c:Document xmlns=', '<c:Document xmlns:c=');
  const statement = parseCamt053(xml);
  t.equal(statement.lines[0].date, '2026-03-02');
  t.equal(statement.lines.length, 2);
});

t.test('CAMT.053: malformed input is a clear error', async (t) => {
  t.throws(() => parseCamt053('<Document><BkToCstmrStmt><Stmt>'), { name: 'StatementError', message: /not well-formed XML/ });
  t.throws(() => parseCamt053('<Document><Other/></Document>'), /not a CAMT\.053 bank statement/);
  t.throws(() => parseCamt053(CAMT053.replace('<Amt Ccy="EUR">42.15</Amt>', '<Amt Ccy="EUR">abc</Amt>')), /Entry 2 of the CAMT\.053 statement has no readable amount/);
  t.throws(() => parseCamt053(CAMT053.replace('<CdtDbtInd>DBIT</CdtDbtInd>', '')), /credit\/debit indicator/);
});

const OFX_LINES = [
  { date: '2026-03-02', amount: '-23.4', currency: 'USD', description: 'POS purchase', counterparty: 'Corner Coffee & Co', reference: 'FIT-0001', account: '000123456789' },
  { date: '2026-03-04', amount: '1200', currency: 'USD', description: 'Employer Inc', counterparty: 'Employer Inc', reference: 'FIT-0002', account: '000123456789' },
];

t.test('OFX 1.x SGML: leaves without end tags', async (t) => {
  const statement = parseOfx(OFX_SGML);
  t.equal(statement.account, '000123456789');
  t.equal(statement.currency, 'USD');
  t.same(statement.lines, OFX_LINES);
});

t.test('OFX 2.x XML reads the same', async (t) => {
  t.same(parseOfx(OFX_XML).lines, OFX_LINES);
  t.equal(parseOfx(OFX_XML).account, '000123456789');
});

t.test('OFX: malformed input is a clear error', async (t) => {
  t.throws(() => parseOfx('hello'), /not an OFX statement/);
  t.throws(() => parseOfx('<OFX><BANKMSGSRSV1></OFX>'), /holds no bank or credit-card statement/);
  t.throws(() => parseOfx(OFX_SGML.replace('<TRNAMT>-23.40', '<TRNAMT>twelve')), /Transaction 1 of the OFX statement has no readable amount/);
  t.throws(() => parseOfx(OFX_XML.slice(0, OFX_XML.indexOf('</BANKTRANLIST>'))), /truncated/);
  t.throws(() => parseOfx('<OFX><STMTRS></BANKTRANLIST></OFX>'), /closes nothing/);
});

t.test('OFX: elements nested without end are refused at once, not recursed into', async (t) => {
  // Tags that are never closed nest one level each: 200000 of them overflowed the stack
  // (and 20000 with end tags took seconds: every end tag searched the whole open stack).
  const started = Date.now();
  t.throws(() => parseOfx('<OFX>' + '<A>'.repeat(200_000) + '</OFX>'), { name: 'StatementError', message: /nest more than 64 levels/ });
  t.throws(() => parseOfx('<OFX>' + '<A>'.repeat(20_000) + '</A>'.repeat(20_000) + '</OFX>'), { name: 'StatementError' });
  t.ok(Date.now() - started < 1000, 'refused quickly');
  t.equal(parseOfx(OFX_SGML).lines.length, 2, 'real statements nest far less');
});

t.test('the format is detected from the content, not the name', async (t) => {
  t.equal(detectStatementFormat(CAMT053), 'camt');
  t.equal(detectStatementFormat(OFX_SGML), 'ofx');
  t.equal(detectStatementFormat(OFX_XML), 'ofx');
  t.equal(detectStatementFormat('amount,currency\n12,EUR\n'), undefined);
  t.equal(detectStatementFormat('<?xml version="1.0"?><feed/>'), undefined);
});

t.test('drafts: positive amounts with the direction in type; unreadable values are warnings', async (t) => {
  const [credit, debit] = draftsFromStatement(parseCamt053(CAMT053), 'camt');
  t.match(credit, { amount: '2500', type: 'income', wallet: 'DE89370400440532013000', party: 'ACME Payroll GmbH', source: 'camt', confidence: 1, warnings: [] });
  t.match(debit, { amount: '42.15', type: 'expense', party: 'City Grocer' });

  const csv = draftsFromCsv('amount,currency,type,party,wallet,category,description,date\n-12.50,eur,,Shop,Cash,Food,Lunch,2026-03-01\n7,EUR,+transfer,,,,,31/02/2026\nabc,EUR,income,,,,,2026-03-01\n');
  t.match(csv[0], { amount: '12.5', type: 'expense', currency: 'EUR', date: '2026-03-01', party: 'Shop', wallet: 'Cash', category: 'Food', confidence: 1, warnings: [] });
  t.equal(csv[1].type, 'income', 'a transfer row keeps the direction of its sign');
  t.equal(csv[1].date, null);
  t.equal(csv[1].confidence, 0.3);
  t.same(csv[1].warnings, ['Transfers cannot be imported here: choose income or expense.', 'The date "31/02/2026" could not be read (or is ambiguous).']);
  t.same(csv[2].warnings, ['The amount "abc" could not be read.']);
  t.equal(csv[2].amount, null);
});

t.test('drafts: an amount that cannot be kept exactly is refused with a warning, never rounded', async (t) => {
  // numeric(19, 4) would round 12.34567 silently, and a too large amount failed the whole analysis.
  const statement = { account: 'A-1', currency: 'EUR', lines: [
    { date: '2026-03-01', amount: '-12.34567', currency: 'EUR', description: null, counterparty: null, reference: null },
    { date: '2026-03-01', amount: '1000000000000000', currency: 'EUR', description: null, counterparty: null, reference: null },
    { date: '2026-03-01', amount: '999999999999999.9999', currency: 'EUR', description: null, counterparty: null, reference: null },
  ] };
  const [fine, huge, largest] = draftsFromStatement(statement, 'ofx');
  t.match(fine, { amount: null, type: 'expense', confidence: 0.3, warnings: ['The amount -12.34567 has more than 4 decimals.'] });
  t.match(huge, { amount: null, type: 'income', warnings: ['The amount 1000000000000000 is too large.'] });
  t.match(largest, { amount: '999999999999999.9999', warnings: [] });

  const csv = draftsFromCsv('amount,date\n99999999999999999999,2026-03-01\n-1,2026-03-01\n');
  t.match(csv[0], { amount: null, type: 'income', warnings: ['The amount 99999999999999999999 is too large.'] });
  t.match(csv[1], { amount: '1', warnings: [] });

  const base = { date: '2026-03-01', type: null, currency: 'EUR', description: null, counterparty: null, reference: null, account: null, tax: null, confidence: 0.8 };
  const [processed] = draftsFromProcessed([{ ...base, amount: '0.30000000000000004', fee: '0.00001' }]);
  t.match(processed, { amount: null, fee: null, type: 'income' });
  t.same(processed.warnings, ['The amount 0.30000000000000004 has more than 4 decimals.', 'The fee 0.00001 has more than 4 decimals.']);
});

t.test('matching by name, and duplicates: exact beats near; near needs the same wallet', async (t) => {
  const records = {
    wallets: [
      { id: 1, name: 'Cash', currency: 'USD', description: null },
      { id: 2, name: 'Cash', currency: 'EUR', description: null },
      { id: 3, name: 'Giro', currency: 'EUR', description: 'IBAN DE89 3704 0044 0532 0130 00' },
    ],
    parties: [{ id: 7, name: 'City Grocer' }],
    categories: [
      { id: 8, name: 'Food', type: 'income' as const },
      { id: 9, name: 'food', type: 'expense' as const },
    ],
  };
  const [credit, debit] = matchRecords(draftsFromStatement(parseCamt053(CAMT053), 'camt'), records);
  t.equal(credit.walletId, 3, 'the IBAN is found in the wallet description');
  t.equal(debit.partyId, 7);
  const [csv] = matchRecords(draftsFromCsv('amount,currency,wallet,category,date\n-5,EUR, cash ,FOOD,2026-03-01\n'), records);
  t.match(csv, { walletId: 2, categoryId: 9, currency: 'EUR' }, 'name in the right currency, category of the same type');

  const existing: ExistingTransaction[] = [
    { id: 100, walletId: 2, type: 'expense', amount: '5.0000', description: 'other', date: '2026-03-03' },
    { id: 101, walletId: 1, type: 'expense', amount: '5.0000', description: null, date: '2026-03-01' },
  ];
  t.match(findDuplicate(csv, existing), { kind: 'exact', transaction: { id: 101 } }, 'same amount, day and (no) description, any wallet');
  t.match(findDuplicate({ ...csv, description: 'lunch' }, existing), { kind: 'near', transaction: { id: 100 } }, 'same wallet, 2 days apart');
  t.equal(findDuplicate({ ...csv, description: 'lunch', date: '2026-03-07' }, existing), null, '4 days apart');
  t.equal(findDuplicate({ ...csv, description: 'lunch', walletId: 3 }, existing), null, 'another wallet');
  t.equal(findDuplicate({ ...csv, amount: '5.01' }, existing), null);
  t.ok(similarDescriptions('Card  payment GROCERIES', 'card payment groceries'));
  t.ok(similarDescriptions('Card payment groceries', 'Card payment grocery'));
  t.notOk(similarDescriptions('Rent', 'Salary'));
  t.notOk(similarDescriptions(null, 'Rent'));
});
