// Markdown as plain text (domain/markdown-text.ts): what a language model writes, read as the
// words a client that prints text shows, with none of Markdown's marks left.
import t from 'tap';
import { markdownToPlainText } from '../../domain/markdown-text.js';
import { MARKUP } from '../helpers/plain-text.js';


t.test('emphasis, code and headings lose their marks', async (t) => {
  t.equal(markdownToPlainText('You spent **45 EUR** on *food* and __rent__, ~~not~~ `fees`.'), 'You spent 45 EUR on food and rent, not fees.');
  t.equal(markdownToPlainText('# March\n\n## Totals\n\nAll good.'), 'March\n\nTotals\n\nAll good.');
  t.equal(markdownToPlainText('snake_case_names and 2 * 3 * 4 stay'), 'snake_case_names and 2 * 3 * 4 stay', 'intraword marks are not emphasis');
  t.equal(markdownToPlainText('\\*not emphasis\\*'), '*not emphasis*', 'an escaped mark is the character');
  t.equal(markdownToPlainText('Tom &amp; Jerry < 5 & more'), 'Tom & Jerry < 5 & more');
});

t.test('lists become lines: bullets as "• ", numbers kept, nested items indented', async (t) => {
  const text = markdownToPlainText('Your wallets:\n\n- Main: **960 USD**\n- Savings: 0 USD\n  1. first\n  2. second\n\n3. three\n4. four');
  t.equal(text, 'Your wallets:\n\n• Main: 960 USD\n• Savings: 0 USD\n  1. first\n  2. second\n\n3. three\n4. four');
  t.notMatch(text, MARKUP);
  t.equal(markdownToPlainText('* one\n+ two'), '• one\n\n• two', 'each bullet style');
});

t.test('tables become lines of cells; quotes, code blocks and rules keep their words', async (t) => {
  t.equal(markdownToPlainText('| Category | Total |\n| --- | ---: |\n| **Food** | 45 |\n| Rent | 900 |'), 'Category · Total\nFood · 45\nRent · 900');
  t.equal(markdownToPlainText('> Watch your **budget**.\n\n```\ntotal = 45\n```\n\n---\n\nDone.'), 'Watch your budget.\n\ntotal = 45\n\nDone.');
});

t.test('links keep their words and address once; images their alt text; line breaks stay', async (t) => {
  t.equal(markdownToPlainText('See [the report](https://example.test/r) or https://example.test/x.'), 'See the report (https://example.test/r) or https://example.test/x.');
  t.equal(markdownToPlainText('![chart of March](c.png)'), 'chart of March');
  t.equal(markdownToPlainText('line one  \nline two\nsame paragraph'), 'line one\nline two\nsame paragraph');
  t.equal(markdownToPlainText('<b>bold</b> text'), 'bold text');
});

t.test('plain text passes through unchanged', async (t) => {
  for (const plain of ['Hello! How can I help with your finances?', 'Total: 960 USD, 50 EUR.', "J'ai préparé une dépense de 40 EUR.", '']) {
    t.equal(markdownToPlainText(plain), plain);
  }
});
