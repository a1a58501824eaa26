import { readFileSync, readdirSync } from 'node:fs';
import { readBankCsv } from './domain/statements/csv-statement.js';
import { decodeStatementText } from './domain/statements/text-encoding.js';
const dir = 'test/fixtures/statements/';
for (const f of readdirSync(dir)) {
  if (!f.endsWith('.csv')) continue;
  const r = readBankCsv(decodeStatementText(readFileSync(dir + f)));
  console.log(f, JSON.stringify(r?.reading));
  for (const d of r?.drafts ?? []) console.log('  ', d.date, d.type, d.amount, d.currency, d.description, '|', d.party, '|', d.wallet, d.warnings.join(';'));
}
