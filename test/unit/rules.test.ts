// The rule language on a table of cases: conditions, text folding, regexes in linear time,
// actions and their order, and the checks that make a rule's errors 422s keyed by field.
import t from 'tap';
import { checkRule, referencedIds, type RuleAction, type RuleCondition, type RuleDefinition } from '../../domain/rules/language.js';
import { compileRules, evaluateRules, type TransactionFacts } from '../../domain/rules/evaluate.js';
import { compileRegex, foldText, regexSubject, requiredLiteral } from '../../domain/rules/text.js';
import { correctionsOf, learnedLine, proposedRule } from '../../domain/rules/learning.js';
import { ruleSplitLines } from '../../domain/rules/splits.js';

const line: TransactionFacts = {
  description: 'KARTENZAHLUNG REWE Markt GmbH 1234 Berlin',
  partyName: 'REWE',
  counterparty: 'REWE Markt GmbH',
  amount: '42.5000',
  type: 'expense',
  walletId: 7,
  currency: 'EUR',
  date: '2026-03-02', // a Monday
};

let nextId = 1;
function rule(conditions: RuleCondition[], actions: RuleAction[] = [{ type: 'add_note', note: 'hit' }], extra: Partial<RuleDefinition> = {}): RuleDefinition {
  const id = nextId++;
  return { id, name: `rule ${id}`, match: 'all', conditions, actions, enabled: true, stop_after: false, ...extra };
}

const matches = (conditions: RuleCondition[], facts: Partial<TransactionFacts> = {}, match: 'all' | 'any' = 'all') =>
  evaluateRules(compileRules([rule(conditions, undefined, { match })]), { ...line, ...facts }).applied.length === 1;

t.test('conditions, one row each: [condition, facts, expected]', async (t) => {
  const cases: Array<[string, RuleCondition, Partial<TransactionFacts>, boolean]> = [
    ['description contains', { field: 'description', operator: 'contains', value: 'rewe markt' }, {}, true],
    ['description contains, other text', { field: 'description', operator: 'contains', value: 'lidl' }, {}, false],
    ['description is (whole text only)', { field: 'description', operator: 'is', value: 'rewe' }, {}, false],
    ['description is, case and spaces', { field: 'description', operator: 'is', value: 'kartenzahlung  rewe markt gmbh 1234 berlin' }, {}, true],
    ['starts_with', { field: 'description', operator: 'starts_with', value: 'Kartenzahlung' }, {}, true],
    ['starts_with, not at the start', { field: 'description', operator: 'starts_with', value: 'REWE' }, {}, false],
    ['one_of party', { field: 'party', operator: 'one_of', values: ['Lidl', 'rewe'] }, {}, true],
    ['one_of party, none', { field: 'party', operator: 'one_of', values: ['Lidl', 'Aldi'] }, {}, false],
    ['counterparty is', { field: 'counterparty', operator: 'is', value: 'rewe markt gmbh' }, {}, true],
    ['counterparty absent never matches', { field: 'counterparty', operator: 'contains', value: 'rewe' }, { counterparty: null }, false],
    ['umlaut vs digraph', { field: 'description', operator: 'contains', value: 'Überweisung' }, { description: 'UEBERWEISUNG an Müller' }, true],
    ['digraph vs umlaut', { field: 'description', operator: 'contains', value: 'mueller' }, { description: 'Überweisung an MÜLLER' }, true],
    ['umlaut typed without dots', { field: 'description', operator: 'contains', value: 'uberweisung' }, { description: 'Überweisung' }, true],
    ['French accents', { field: 'description', operator: 'starts_with', value: 'PRELEVEMENT SEPA' }, { description: 'Prélèvement SEPA EDF' }, true],
    ['ß as ss', { field: 'description', operator: 'contains', value: 'strasse' }, { description: 'Hauptstraße 5' }, true],
    ['regex', { field: 'description', operator: 'regex', value: 'rewe\\s+markt.*\\d{4}' }, {}, true],
    ['regex, accents and case', { field: 'description', operator: 'regex', value: '^prelevement' }, { description: 'PRÉLÈVEMENT Free' }, true],
    ['regex, anchored miss', { field: 'description', operator: 'regex', value: '^rewe' }, {}, false],
    ['amount eq', { field: 'amount', operator: 'eq', amount: 42.5 }, {}, true],
    ['amount eq, other', { field: 'amount', operator: 'eq', amount: 42.51 }, {}, false],
    ['amount above', { field: 'amount', operator: 'above', amount: 42.49 }, {}, true],
    ['amount above is strict', { field: 'amount', operator: 'above', amount: 42.5 }, {}, false],
    ['amount below', { field: 'amount', operator: 'below', amount: 100 }, {}, true],
    ['amount between, inclusive', { field: 'amount', operator: 'between', amount: 10, amount_to: 42.5 }, {}, true],
    ['amount between, outside', { field: 'amount', operator: 'between', amount: 50, amount_to: 60 }, {}, false],
    ['amount, no float drift', { field: 'amount', operator: 'eq', amount: 0.3 }, { amount: '0.3000' }, true],
    ['type', { field: 'type', value: 'expense' }, {}, true],
    ['type, other', { field: 'type', value: 'income' }, {}, false],
    ['wallet', { field: 'wallet', wallet_ids: [3, 7] }, {}, true],
    ['wallet, other', { field: 'wallet', wallet_ids: [3] }, {}, false],
    ['currency', { field: 'currency', values: ['usd', 'eur'] }, {}, true],
    ['currency, other', { field: 'currency', value: 'CHF' }, {}, false],
    ['date range', { field: 'date', date_from: '2026-03-01', date_to: '2026-03-31' }, {}, true],
    ['date range, open end', { field: 'date', date_from: '2026-03-03' }, {}, false],
    ['weekday', { field: 'weekday', weekdays: [1] }, {}, true],
    ['weekday, Sunday is 7', { field: 'weekday', weekdays: [7] }, { date: '2026-03-08' }, true],
    ['weekday, other', { field: 'weekday', weekdays: [6, 7] }, {}, false],
  ];
  for (const [name, condition, facts, expected] of cases) t.equal(matches([condition], facts), expected, name);
});

t.test('all and any', async (t) => {
  const yes: RuleCondition = { field: 'type', value: 'expense' };
  const no: RuleCondition = { field: 'type', value: 'income' };
  t.equal(matches([yes, no], {}, 'all'), false);
  t.equal(matches([yes, no], {}, 'any'), true);
  t.equal(matches([no, no], {}, 'any'), false);
});

t.test('actions: order is priority, notes add up, stop_after ends, disabled rules are skipped', async (t) => {
  const hit: RuleCondition = { field: 'description', operator: 'contains', value: 'rewe' };
  const rules = [
    rule([hit], [{ type: 'set_categories', category_ids: [5, 5, 6] }, { type: 'add_note', note: 'one' }]),
    rule([hit], [{ type: 'set_categories', category_ids: [9] }, { type: 'set_party', party_name: ' REWE ', create_party: true }, { type: 'add_note', note: 'two' }]),
    rule([hit], [{ type: 'set_group', group_id: 1 }], { enabled: false }),
    rule([hit], [{ type: 'set_description', description: 'REWE' }, { type: 'transfer_to_wallet', wallet_id: 3 }, { type: 'skip' }], { stop_after: true }),
    rule([hit], [{ type: 'set_group', group_id: 2 }]),
  ];
  const outcome = evaluateRules(compileRules(rules), line);
  t.same(outcome.categoryIds, [5, 6], 'the first rule that sets categories decides them');
  t.same(outcome.party, { name: 'REWE', create: true });
  t.same(outcome.notes, ['one', 'two']);
  t.equal(outcome.description, 'REWE');
  t.equal(outcome.transferWalletId, 3);
  t.equal(outcome.skip, true);
  t.equal(outcome.skippedBy, rules[3].name);
  t.equal(outcome.groupId, undefined, 'neither the disabled rule nor one after stop_after applies');
  t.same(
    outcome.applied.map((r) => r.id),
    [rules[0].id, rules[1].id, rules[3].id],
  );
});

t.test('rules test the incoming fields, never what another rule wrote: no loops', async (t) => {
  const rules = [
    rule([{ field: 'description', operator: 'contains', value: 'rewe' }], [{ type: 'set_description', description: 'Groceries at LIDL' }]),
    rule([{ field: 'description', operator: 'contains', value: 'lidl' }], [{ type: 'set_description', description: 'REWE again' }]),
  ];
  const outcome = evaluateRules(compileRules(rules), line);
  t.equal(outcome.description, 'Groceries at LIDL');
  t.same(outcome.applied.map((r) => r.id), [rules[0].id], 'the second rule does not see the first one\'s output');
  t.same(evaluateRules(compileRules([]), line), { notes: [], skip: false, applied: [] });
});

t.test('text folding', async (t) => {
  t.equal(foldText('ÜBERWEISUNG'), foldText('Ueberweisung'));
  t.equal(foldText('Prélèvement  SEPA'), 'prelevement sepa');
  t.equal(foldText('Straße'), 'strasse');
  t.equal(foldText('ＲＥＷＥ'), 'rewe', 'full-width letters fold to their compatibility form');
});

t.test('regexes run in linear time and refuse what RE2 cannot do', async (t) => {
  const evil = compileRegex('(a+)+$');
  t.equal(evil.test('a'.repeat(20_000) + 'b'), false, 'a pattern catastrophic for a backtracking engine simply answers');
  t.throws(() => compileRegex('(a'), { name: 'Error' });
  t.throws(() => compileRegex('(a)\\1'), 'back-references are refused');
  t.throws(() => compileRegex('(?=a)'), 'look-arounds are refused');
  t.equal(compileRegex('rewe').test(regexSubject('Kartenzahlung REWE')), true);
});

t.test('requiredLiteral: only what every match must contain', async (t) => {
  const cases: Array<[string, string | undefined]> = [
    ['^einkauf 3\\d*5; filiale', 'einkauf 3'],
    ['rewe|lidl', undefined],
    ['(rewe)?markt', 'markt'],
    ['reweX?', 'rewe'],
    ['ab+c', 'ab'],
    ['[abc]xyz', 'xyz'],
    ['a.b', undefined],
    ['Netflix\\.com', 'netflix'],
  ];
  for (const [pattern, expected] of cases) t.equal(requiredLiteral(pattern), expected, pattern);
  for (const [pattern, text, expected] of [
    ['(rewe)?markt', 'MARKT', true],
    ['reweX?', 'REWE', true],
    ['^einkauf 3\\d*5; filiale', 'Einkauf 305; Filiale 2', true],
    ['^einkauf 3\\d*5; filiale', 'Einkauf 405; Filiale 2', false],
  ] as const) {
    t.equal(compileRegex(pattern).test(regexSubject(text)), expected, `${pattern} on ${text}`);
  }
});

t.test('checkRule: errors keyed by field', async (t) => {
  const ok = checkRule({ conditions: [{ field: 'description', operator: 'regex', value: '^rewe' }], actions: [{ type: 'set_categories', category_ids: [1] }] });
  t.same(ok, {});
  const errors = checkRule({
    conditions: [
      { field: 'description', operator: 'regex', value: '(unclosed' },
      { field: 'party', operator: 'one_of' },
      { field: 'amount', operator: 'between', amount: 10, amount_to: 5 },
      { field: 'amount', operator: 'contains', amount: 1 },
      { field: 'type', value: 'transfer' },
      { field: 'wallet' },
      { field: 'date', date_from: '2026-02-01', date_to: '2026-01-01' },
      { field: 'weekday', weekdays: [] },
      { field: 'currency' },
      { field: 'counterparty', operator: 'contains' },
    ],
    actions: [{ type: 'set_party' }, { type: 'set_party', party_id: 1, party_name: 'x' }, { type: 'set_group' }, { type: 'add_note' }, { type: 'transfer_to_wallet' }, { type: 'set_description' }],
  });
  t.same(Object.keys(errors).sort(), [
    'actions.0.party_id',
    'actions.1.party_name',
    'actions.1.type',
    'actions.2.group_id',
    'actions.3.note',
    'actions.4.wallet_id',
    'actions.5.description',
    'conditions.0.value',
    'conditions.1.values',
    'conditions.2.amount_to',
    'conditions.3.operator',
    'conditions.4.value',
    'conditions.5.wallet_ids',
    'conditions.6.date_to',
    'conditions.7.weekdays',
    'conditions.8.values',
    'conditions.9.value',
  ]);
  t.match(errors['conditions.0.value'][0], /does not compile/);
  t.same(Object.keys(checkRule({ conditions: [], actions: [] })).sort(), ['actions', 'conditions']);
});

t.test('referencedIds names the field of every id', async (t) => {
  const refs = referencedIds({
    conditions: [{ field: 'wallet', wallet_ids: [4] }],
    actions: [{ type: 'set_categories', category_ids: [1, 2] }, { type: 'set_group', group_id: 3 }, { type: 'transfer_to_wallet', wallet_id: 5 }, { type: 'set_party', party_id: 6 }],
  });
  t.same(refs, {
    categories: [['actions.0.category_ids', 1], ['actions.0.category_ids', 2]],
    wallets: [['conditions.0.wallet_ids', 4], ['actions.2.wallet_id', 5]],
    groups: [['actions.1.group_id', 3]],
    parties: [['actions.3.party_id', 6]],
  });
});

t.test('learned rules: the line text a correction is keyed by, and what a correction teaches', async (t) => {
  t.same(learnedLine({ counterparty: '  REWE Markt GmbH ', description: 'Kartenzahlung' }), { field: 'counterparty', text: 'REWE Markt GmbH', key: 'rewe markt gmbh' });
  t.same(learnedLine({ counterparty: 'Bäckerei Süd', description: null })?.key, learnedLine({ counterparty: 'BAECKEREI SUED', description: null })?.key, 'umlaut spellings fold alike');
  t.same(learnedLine({ counterparty: '', description: 'Miete Maerz' }), { field: 'description', text: 'Miete Maerz', key: 'miete marz' }, 'no counterparty: the description');
  t.equal(learnedLine({ counterparty: null, description: '   ' }), undefined);

  t.same(correctionsOf({ categoryIds: [1], partyId: null }, { categoryIds: [2] }), [{ kind: 'category', to: 2, from: [1] }]);
  t.same(correctionsOf({ categoryIds: [2], partyId: 5 }, { categoryIds: [2], partyId: 5 }), [], 'the same values teach nothing');
  t.same(correctionsOf({ categoryIds: [], partyId: null }, { categoryIds: [2, 3] }), [], 'several categories are not learned from');
  t.same(correctionsOf({ categoryIds: [3, 1], partyId: 5 }, { categoryIds: [2, 2], partyId: 7 }), [
    { kind: 'category', to: 2, from: [1, 3] },
    { kind: 'party', to: 7, from: [5] },
  ]);
  t.same(correctionsOf({ categoryIds: [], partyId: 5 }, { partyId: null }), [], 'a party removed is not learned from');

  t.same(proposedRule({ field: 'counterparty', text: 'REWE', kind: 'party', targetId: 9, targetName: 'Rewe' }), {
    name: 'REWE: Rewe',
    match: 'all',
    conditions: [{ field: 'counterparty', operator: 'is', value: 'REWE' }],
    actions: [{ type: 'set_party', party_id: 9 }],
  });
});

t.test('set_splits: one field with set_categories for priority; lines made for the amount', async (t) => {
  const hit: RuleCondition = { field: 'description', operator: 'contains', value: 'rewe' };
  const halves: RuleAction = { type: 'set_splits', splits: [{ percent: 50, category_id: 1 }, { percent: 50, category_id: 2 }] };
  const splitFirst = evaluateRules(compileRules([rule([hit], [halves]), rule([hit], [{ type: 'set_categories', category_ids: [9] }])]), line);
  t.same([splitFirst.splits, splitFirst.categoryIds], [halves.splits, undefined], 'a rule that splits first decides the categories');
  const categoriesFirst = evaluateRules(compileRules([rule([hit], [{ type: 'set_categories', category_ids: [9] }]), rule([hit], [halves])]), line);
  t.same([categoriesFirst.splits, categoriesFirst.categoryIds], [undefined, [9]], 'and the other way round');

  const amounts = (result: ReturnType<typeof ruleSplitLines>) => ('lines' in result ? result.lines.map((l) => l.amount) : result.reason);
  const cases: Array<[string, Parameters<typeof ruleSplitLines>[1], string[] | RegExp]> = [
    ['100', [{ percent: 60 }, { percent: 40 }], ['60', '40']],
    ['10.01', [{ percent: 33.3333 }, { percent: 33.3333 }, { percent: 33.3334 }], ['3.3367', '3.3367', '3.3366']],
    ['0.0005', [{ percent: 50 }, { percent: 50 }], ['0.0003', '0.0002']],
    ['0.0001', [{ percent: 60 }, { percent: 40 }], /too small/],
    ['2500', [{ amount: 200 }, {}], ['200', '2300']],
    ['100', [{ amount: 60 }, { amount: 40 }], ['60', '40']],
    ['100', [{ amount: 60 }, { amount: 30 }], /add up to 90, not the amount 100/],
    ['150', [{ amount: 200 }, {}], /leave nothing/],
  ];
  for (const [amount, splits, expected] of cases) {
    const result = amounts(ruleSplitLines(amount, splits));
    if (expected instanceof RegExp) t.match(result, expected, `${amount} by ${JSON.stringify(splits)}`);
    else t.same(result, expected, `${amount} by ${JSON.stringify(splits)}`);
  }
  t.same(
    Object.keys(checkRule({ conditions: [hit], actions: [{ type: 'set_splits', splits: [{ percent: 50 }, { amount: 5 }] }] })),
    ['actions.0.splits.1.amount', 'actions.0.splits'],
  );
  t.same(referencedIds({ conditions: [hit], actions: [{ type: 'set_splits', splits: [{ percent: 50, category_id: 3 }, { percent: 50, party_id: 4 }] }] }).parties, [['actions.0.splits.1.party_id', 4]]);
});
