// Reading CSV rows for imports: header aliases, files without a header, lenient amounts and dates.
import t from 'tap';
import { CsvReadError, MAX_IMPORT_ROWS, parseImportAmount, parseImportDate, parseImportType, readCsvRows } from '../../domain/import-rows.js';

t.test('a header is matched by name with aliases, in any order, ignoring case and spaces', async (t) => {
  const rows = readCsvRows(
    '\uFEFFBooking Date,Payee,AMOUNT,Account,Memo,currency,Category,Type\n' +
      '2026-03-01,Grocer,"1,234.50",Checking,"Weekly, big",eur,Food,Expense\n',
  );
  t.equal(rows.length, 1);
  t.same(rows[0].values, {
    amount: '1,234.50',
    currency: 'eur',
    type: 'expense',
    party: 'Grocer',
    wallet: 'Checking',
    category: 'Food',
    description: 'Weekly, big',
    date: '2026-03-01',
  });
  t.equal(rows[0].line, 2, 'the header is line 1');
  t.same(rows[0].raw['Booking Date'], '2026-03-01', 'raw cells are keyed by the header as written');
  t.equal(rows[0].cells.type, 'Expense', 'cells keep the text as written');

  const notes = readCsvRows('amount,notes,wallet_name\n5,hello,x\n');
  t.equal(notes[0].values.description, 'hello', 'notes is an alias of description');
  t.equal(notes[0].values.wallet, null, 'an unknown column is not guessed');
  t.equal(notes[0].raw.wallet_name, 'x');
});

t.test('without a header, columns are positional and missing ones are null', async (t) => {
  const rows = readCsvRows('10,USD,income,Boss,Cash,Salary,March pay,2026-03-31\n-4.5\n');
  t.same(rows[0].values, {
    amount: '10',
    currency: 'USD',
    type: 'income',
    party: 'Boss',
    wallet: 'Cash',
    category: 'Salary',
    description: 'March pay',
    date: '2026-03-31',
  });
  t.equal(rows[0].line, 1);
  t.same(rows[1].values, { amount: '-4.5', currency: null, type: null, party: null, wallet: null, category: null, description: null, date: null });
  t.equal(rows[1].cells.date, null, 'a missing column is null, not empty');
});

t.test('line numbers count blank lines and multi-line cells; semicolons and tabs are detected', async (t) => {
  const rows = readCsvRows('amount;description;date\n1,5;"two\nlines";01.02.2026\n\n3;x;2026-01-01\n');
  t.same(rows.map((r) => r.line), [2, 5]);
  t.equal(rows[0].values.amount, '1,5');
  t.equal(rows[0].values.description, 'two\nlines');
  const tabs = readCsvRows('amount\tparty\n7\tShop\n');
  t.equal(tabs[0].values.party, 'Shop');
  t.same(readCsvRows(''), []);
  t.same(readCsvRows('\n\n'), []);
  t.throws(() => readCsvRows('amount,description\n1,"never closed\n'), { name: 'CsvReadError' });
  const crlf = readCsvRows('amount,party\r\n1,A\r\n\r\n2,B\r\n');
  t.same(crlf.map((r) => [r.line, r.values.party]), [[2, 'A'], [4, 'B']]);
});

t.test('transfer rows read as type transfer; the cell says which side', async (t) => {
  const rows = readCsvRows('amount,type\n5,+Transfer\n5,-transfer\n5,gift\n');
  t.same(rows.map((r) => r.values.type), ['transfer', 'transfer', null]);
  t.same(rows.map((r) => r.cells.type), ['+Transfer', '-transfer', 'gift']);
  t.equal(parseImportType(' INCOME '), 'income');
  t.equal(parseImportType(''), null);
});

t.test('amounts: signs, thousands separators, decimal commas', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['12', '12', false],
    ['-12', '12', true],
    ['+3.25', '3.25', false],
    ['12-', '12', true],
    ['(5.00)', '5', true],
    ['1,234.50', '1234.5', false],
    ['1.234,50', '1234.5', false],
    ['-1.234.567,89', '1234567.89', true],
    ['1 234,5', '1234.5', false],
    ["1'234.50", '1234.5', false],
    ['12,50', '12.5', false],
    ['1,234', '1234', false],
    ['1.234', '1.234', false],
    ['0.0001', '0.0001', false],
    ['$1,000', '1000', false],
    ['12.00 EUR', '12', false],
    ['-€5', '5', true],
    ['0', '0', false],
    ['-0', '0', false],
  ];
  for (const [raw, amount, negative] of cases) t.same(parseImportAmount(raw), { amount, negative }, raw);
  for (const raw of ['', 'abc', '1.23456', '1,23,4', '1.2.3', '--5', '-5-', '1e5', '1,234.5,6', '.', ',5', '5.']) {
    t.equal(parseImportAmount(raw), null, `refused: "${raw}"`);
  }
});

t.test('dates: ISO, unambiguous day-first and month-first forms, month names', async (t) => {
  const cases: Array<[string, string]> = [
    ['2026-03-07', '2026-03-07'],
    ['2026-3-7', '2026-03-07'],
    ['2026/03/07', '2026-03-07'],
    ['2026-03-07T23:59:00Z', '2026-03-07'],
    ['2026-03-07 10:30', '2026-03-07'],
    ['31/01/2026', '2026-01-31'],
    ['01/31/2026', '2026-01-31'],
    ['13-02-2026', '2026-02-13'],
    ['05/05/2026', '2026-05-05'],
    ['07.03.2026', '2026-03-07'],
    ['7 Mar 2026', '2026-03-07'],
    ['07-Mar-2026', '2026-03-07'],
    ['March 7, 2026', '2026-03-07'],
    ['Mar 7 2026', '2026-03-07'],
    ['1 Sept 2026', '2026-09-01'],
  ];
  for (const [raw, date] of cases) t.equal(parseImportDate(raw), date, raw);
});

t.test('ambiguous or impossible dates are null', async (t) => {
  for (const raw of ['02/03/2026', '03-04-2026', '2026-02-30', '31/02/2026', '13/13/2026', '2026-13-01', 'yesterday', '', '7 Foo 2026', '7 Marchy 2026', '26-03-07', '2026-03']) {
    t.equal(parseImportDate(raw), null, `refused: "${raw}"`);
  }
});

t.test('a file of more rows than an import takes is refused without holding them all', async (t) => {
  // A 10 MB upload of tiny rows is nearly two million rows: about 1.6 GB of heap and half a
  // minute of blocked event loop when read whole.
  t.equal(readCsvRows('amount\n' + '1\n'.repeat(MAX_IMPORT_ROWS)).length, MAX_IMPORT_ROWS, 'the limit itself is fine');
  t.throws(() => readCsvRows('amount\n' + '1\n'.repeat(MAX_IMPORT_ROWS + 1)), { name: 'CsvReadError', message: `The file has more than ${MAX_IMPORT_ROWS} rows: split it into smaller files.` });
  t.throws(() => readCsvRows('1\n'.repeat(MAX_IMPORT_ROWS + 1)), CsvReadError, 'without a header too');
  const started = Date.now();
  t.throws(() => readCsvRows('amount\n' + '1\n'.repeat(2_000_000)), CsvReadError);
  t.ok(Date.now() - started < 5000, `stops reading at the limit (${Date.now() - started} ms)`);
});

t.test('amounts are exact: no exponent, at most 4 decimals, no float artefacts', async (t) => {
  t.equal(parseImportAmount('1e3'), null);
  t.equal(parseImportAmount('12.34567'), null);
  t.same(parseImportAmount('1,234.5678'), { amount: '1234.5678', negative: false });
  t.same(parseImportAmount('-0'), { amount: '0', negative: false });
  t.same(parseImportAmount('0.1'), { amount: '0.1', negative: false });
});
