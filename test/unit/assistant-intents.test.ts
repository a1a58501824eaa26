// The local assistant's parser: sentences in English and French (and some Spanish and German)
// with their expected reading, against a fixed today (Wednesday 2026-03-18) and one user's
// names. Amounts are decimal strings; days are the user's calendar days.
import t from 'tap';
import { plainDecimal } from '../../domain/assistant-intents/amounts.js';
import { addDays, findDay } from '../../domain/assistant-intents/dates.js';
import { editDistance } from '../../domain/assistant-intents/fuzzy.js';
import { parseSentence, type Intent, type LedgerNames } from '../../domain/assistant-intents/intents.js';
import { fold } from '../../domain/assistant-intents/text.js';

const TODAY = '2026-03-18'; // a Wednesday

const names: LedgerNames = {
  wallets: [
    { id: 1, name: 'Checking', currency: 'USD' },
    { id: 2, name: 'Savings', currency: 'USD' },
    { id: 3, name: 'Cash', currency: 'EUR' },
    { id: 4, name: 'Compte courant', currency: 'EUR' },
    { id: 5, name: 'Épargne', currency: 'EUR' },
  ],
  categories: [
    { id: 10, name: 'Restaurants', type: 'expense' },
    { id: 11, name: 'Groceries', type: 'expense' },
    { id: 12, name: 'Salary', type: 'income' },
    { id: 13, name: 'Transportation', type: 'expense' },
    { id: 14, name: 'Loisirs', type: 'expense' },
    { id: 15, name: 'Freelance', type: 'income' },
    { id: 16, name: 'Housing', type: 'expense' },
    { id: 17, name: 'Healthcare', type: 'expense' },
  ],
  parties: [
    { id: 20, name: "Mama's" },
    { id: 21, name: 'Carrefour' },
    { id: 22, name: 'Acme Corp' },
    { id: 23, name: 'Uber' },
  ],
};

const expense = (amount: string, rest: Partial<Extract<Intent, { kind: 'record' }>> = {}): Intent => ({ kind: 'record', type: 'expense', amount, ...rest });
const income = (amount: string, rest: Partial<Extract<Intent, { kind: 'record' }>> = {}): Intent => ({ kind: 'record', type: 'income', amount, ...rest });
const transfer = (amount: string, rest: Partial<Extract<Intent, { kind: 'transfer' }>> = {}): Intent => ({ kind: 'transfer', amount, ...rest });
const spending = (from: string, to: string, rest: { categoryId?: number; type?: 'income' | 'expense' } = {}): Intent => ({ kind: 'spending', type: rest.type ?? 'expense', ...(rest.categoryId ? { categoryId: rest.categoryId } : {}), from, to });
const top = (from: string, to: string): Intent => ({ kind: 'top_categories', type: 'expense', from, to });
const BALANCE: Intent = { kind: 'balance' };
const BUDGETS: Intent = { kind: 'budgets' };
const HELP: Intent = { kind: 'help' };
const recent = (limit: number): Intent => ({ kind: 'recent', limit });
const MONTH = ['2026-03-01', TODAY] as const;
const LAST_MONTH = ['2026-02-01', '2026-02-28'] as const;
const YEAR = ['2026-01-01', TODAY] as const;

/** [sentence, language, expected intent]. Fields left out must be absent. */
const TABLE: Array<[string, 'en' | 'fr' | 'es' | 'de', Intent]> = [
  // expenses, English
  ["I spent 40 USD on dinner at Mama's", 'en', expense('40', { currency: 'USD', categoryId: 10, partyId: 20, description: "dinner at Mama's" })],
  ['I spent 40 on dinner', 'en', expense('40', { categoryId: 10, description: 'dinner' })],
  ['spent $40 on groceries', 'en', expense('40', { currency: 'USD', categoryId: 11, description: 'groceries' })],
  ['paid 40$ for lunch', 'en', expense('40', { currency: 'USD', categoryId: 10, description: 'lunch' })],
  ['paid 40€ for a pizza', 'en', expense('40', { currency: 'EUR', categoryId: 10, description: 'pizza' })],
  ['bought groceries for 23.75 EUR', 'en', expense('23.75', { currency: 'EUR', categoryId: 11 })],
  ['I paid 1,234.50 for rent', 'en', expense('1234.50', { categoryId: 16, description: 'rent' })],
  ['paid 1234.5 for rent from Checking', 'en', expense('1234.5', { walletId: 1, categoryId: 16, description: 'rent' })],
  ['spent 12.99 on uber yesterday', 'en', expense('12.99', { partyId: 23, categoryId: 13, description: 'uber', day: '2026-03-17' })],
  ['spent 15 on taxi with Chekcing', 'en', expense('15', { walletId: 1, categoryId: 13, description: 'taxi' })],
  ['paid 60 at Carefour', 'en', expense('60', { partyId: 21 })],
  ['paid 60 at carrefour last Friday', 'en', expense('60', { partyId: 21, day: '2026-03-13' })],
  ['spent forty dollars on pizza', 'en', expense('40', { currency: 'USD', categoryId: 10, description: 'pizza' })],
  ['spent 8 on coffee 2 days ago', 'en', expense('8', { categoryId: 10, description: 'coffee', day: '2026-03-16' })],
  ['spent 8 on coffee on the 3rd', 'en', expense('8', { categoryId: 10, description: 'coffee', day: '2026-03-03' })],
  ['spent 30 on the 25th for groceries', 'en', expense('30', { categoryId: 11, day: '2026-02-25', description: 'groceries' })],
  ['I spent 20 GBP on movies', 'en', expense('20', { currency: 'GBP', categoryId: 14, description: 'movies' })],
  ['paid 90 for the doctor on 2026-03-10', 'en', expense('90', { categoryId: 17, day: '2026-03-10', description: 'doctor' })],
  ['coffee 4.50', 'en', expense('4.50', { categoryId: 10 })],
  ['spent 5 today', 'en', expense('5', { day: TODAY })],
  ['I spent 45 on restaurnts', 'en', expense('45', { categoryId: 10, description: 'restaurnts' })],
  ['spent 45 on Transportaion', 'en', expense('45', { categoryId: 13, description: 'Transportaion' })],
  ['spent 70 at Acme Corp', 'en', expense('70', { partyId: 22 })],
  ['spent 70 at Acme Crop', 'en', expense('70', { partyId: 22 })],
  ['spent 200 cash on groceries', 'en', expense('200', { walletId: 3, categoryId: 11, description: 'groceries' })],
  ['spent 3 on bus last monday', 'en', expense('3', { categoryId: 13, description: 'bus', day: '2026-03-16' })],
  ['spent 3 on bus a week ago', 'en', expense('3', { categoryId: 13, description: 'bus', day: '2026-03-11' })],
  ['paid 12 for parking the day before yesterday', 'en', expense('12', { categoryId: 13, description: 'parking', day: '2026-03-16' })],
  ['spent USD 40 on dinner', 'en', expense('40', { currency: 'USD', categoryId: 10, description: 'dinner' })],
  ['spent 0.99 on an app', 'en', expense('0.99', { description: 'app' })],
  ['I bought shoes for 1 299,00 €', 'en', expense('1299.00', { currency: 'EUR' })],
  ['spent 40 on lunch on 5 march', 'en', expense('40', { categoryId: 10, description: 'lunch', day: '2026-03-05' })],
  // expenses, French
  ["J'ai dépensé 1 234,50 € chez Carrefour hier", 'fr', expense('1234.50', { currency: 'EUR', partyId: 21, day: '2026-03-17' })],
  ["j'ai dépensé 40 euros au restaurant", 'fr', expense('40', { currency: 'EUR', categoryId: 10 })],
  ["j'ai payé 12,50 € pour le déjeuner", 'fr', expense('12.50', { currency: 'EUR', categoryId: 10, description: 'déjeuner' })],
  ["j'ai payé 12,5 pour un taxi il y a 2 jours", 'fr', expense('12.5', { categoryId: 13, description: 'taxi', day: '2026-03-16' })],
  ['dépensé 60 € de courses avant-hier', 'fr', expense('60', { currency: 'EUR', categoryId: 11, day: '2026-03-16' })],
  ["j'ai acheté des courses pour 35 € vendredi dernier", 'fr', expense('35', { currency: 'EUR', categoryId: 11, day: '2026-03-13' })],
  ['payé 800 de loyer le 3', 'fr', expense('800', { categoryId: 16, day: '2026-03-03' })],
  ['payé 800 de loyer le 1er', 'fr', expense('800', { categoryId: 16, day: '2026-03-01' })],
  ["j'ai dépensé 25 € en essence avec le compte courant", 'fr', expense('25', { currency: 'EUR', walletId: 4, categoryId: 13, description: 'essence' })],
  ["j'ai dépensé 25 € en essence sur le compte courrant", 'fr', expense('25', { currency: 'EUR', walletId: 4, categoryId: 13, description: 'essence' })],
  ['dépensé 15 € au cinéma hier', 'fr', expense('15', { currency: 'EUR', categoryId: 14, day: '2026-03-17' })],
  ["j'ai payé 9,90 € chez Mamas", 'fr', expense('9.90', { currency: 'EUR', partyId: 20 })],
  ['payé 42 EUR à la pharmacie', 'fr', expense('42', { currency: 'EUR', categoryId: 17 })],
  ["j'ai dépensé 1.500,00 € pour le loyer", 'fr', expense('1500.00', { currency: 'EUR', categoryId: 16, description: 'loyer' })],
  ["j'ai dépensé 30 € il y a une semaine", 'fr', expense('30', { currency: 'EUR', day: '2026-03-11' })],
  ["j'ai dépensé 30 € aujourd'hui pour un resto", 'fr', expense('30', { currency: 'EUR', categoryId: 10, day: TODAY, description: 'resto' })],
  ['dépensé 30 € lundi dernier en cash', 'fr', expense('30', { currency: 'EUR', walletId: 3, day: '2026-03-16' })],
  ["j'ai payé vingt euros pour un repas", 'fr', expense('20', { currency: 'EUR', categoryId: 10, description: 'repas' })],
  ['dépensé 18 € le 12 mars au restaurant', 'fr', expense('18', { currency: 'EUR', categoryId: 10, day: '2026-03-12' })],
  // incomes
  ['got paid 2500 salary into Checking', 'en', income('2500', { walletId: 1, categoryId: 12 })],
  ['received 2500 USD salary', 'en', income('2500', { currency: 'USD', categoryId: 12 })],
  ['received 300 from Acme Corp for freelance', 'en', income('300', { partyId: 22, categoryId: 15, description: 'freelance' })],
  ['earned 150 yesterday', 'en', income('150', { day: '2026-03-17' })],
  ['got paid 1,200.00 into Savigns', 'en', income('1200.00', { walletId: 2, categoryId: 12 })],
  ['received a refund of 20', 'en', income('20')],
  ["j'ai reçu mon salaire de 2 500 €", 'fr', income('2500', { currency: 'EUR', categoryId: 12 })],
  ["j'ai reçu 300 € de Acme Corp", 'fr', income('300', { currency: 'EUR', partyId: 22 })],
  ["j'ai touché 2500 de salaire sur le compte courant", 'fr', income('2500', { walletId: 4, categoryId: 12 })],
  ["j'ai gagné 45,50 € hier", 'fr', income('45.50', { currency: 'EUR', day: '2026-03-17' })],
  ['reçu 1.500,00 EUR de Acme Corp', 'fr', income('1500.00', { currency: 'EUR', partyId: 22 })],
  ['recibí 500 € de sueldo', 'es', income('500', { currency: 'EUR', categoryId: 12 })],
  ['2500 Gehalt erhalten', 'de', income('2500', { categoryId: 12 })],
  // transfers
  ['move 200 from Checking to Savings', 'en', transfer('200', { fromWalletId: 1, toWalletId: 2 })],
  ['transfer 1,000 from Savings to Checking', 'en', transfer('1000', { fromWalletId: 2, toWalletId: 1 })],
  ['move $50 from chekcing to savngs', 'en', transfer('50', { currency: 'USD', fromWalletId: 1, toWalletId: 2 })],
  ['transfer 200 to Savings', 'en', transfer('200', { toWalletId: 2 })],
  ['move 75.25 from Checking into Savings yesterday', 'en', transfer('75.25', { fromWalletId: 1, toWalletId: 2, day: '2026-03-17' })],
  ['send 20 from cash to checking', 'en', transfer('20', { fromWalletId: 3, toWalletId: 1 })],
  ["vire 200 du compte courant vers l'épargne", 'fr', transfer('200', { fromWalletId: 4, toWalletId: 5 })],
  ['transfère 150 € de Compte courant à Epargne', 'fr', transfer('150', { currency: 'EUR', fromWalletId: 4, toWalletId: 5 })],
  ["mets 100 € sur l'épargne", 'fr', transfer('100', { currency: 'EUR', toWalletId: 5 })],
  ['virement de 1 000 € du compte courant vers épargne hier', 'fr', transfer('1000', { currency: 'EUR', fromWalletId: 4, toWalletId: 5, day: '2026-03-17' })],
  ['déplace 30 de cash vers compte courant', 'fr', transfer('30', { fromWalletId: 3, toWalletId: 4 })],
  ['transfiere 50 de mi Checking a Savings', 'es', transfer('50', { fromWalletId: 1, toWalletId: 2 })],
  ['überweise 50 von Checking auf Savings', 'de', transfer('50', { fromWalletId: 1, toWalletId: 2 })],
  // balances
  ['how much is in my wallets?', 'en', BALANCE],
  ['what is my balance?', 'en', BALANCE],
  ['show my balances', 'en', BALANCE],
  ['how much money do I have?', 'en', BALANCE],
  ['combien j’ai sur mes comptes ?', 'fr', BALANCE],
  ['quel est mon solde ?', 'fr', BALANCE],
  ['montre mes soldes', 'fr', BALANCE],
  ['¿cuánto tengo en mis cuentas?', 'es', BALANCE],
  ['wie viel habe ich auf meinen Konten?', 'de', BALANCE],
  // spending
  ['how much did I spend on food last month?', 'en', spending(...LAST_MONTH, { categoryId: 10 })],
  ['how much did I spend this month?', 'en', spending(...MONTH)],
  ['how much did I spend on restaurants this year?', 'en', spending(...YEAR, { categoryId: 10 })],
  ['how much did I spend on groceries last week?', 'en', spending('2026-03-09', '2026-03-15', { categoryId: 11 })],
  ['how much did I spend yesterday?', 'en', spending('2026-03-17', '2026-03-17')],
  ['how much did I spend on transport in the last 7 days?', 'en', spending('2026-03-12', TODAY, { categoryId: 13 })],
  ['how much did I spend in February?', 'en', spending('2026-02-01', '2026-02-28')],
  ['how much did I earn last month?', 'en', spending(...LAST_MONTH, { type: 'income' })],
  ['what was my income this year?', 'en', spending(...YEAR, { type: 'income' })],
  ['combien ai-je dépensé en restaurants le mois dernier ?', 'fr', spending(...LAST_MONTH, { categoryId: 10 })],
  ["combien j'ai dépensé ce mois-ci ?", 'fr', spending(...MONTH)],
  ["combien j'ai dépensé en courses cette semaine ?", 'fr', spending('2026-03-16', TODAY, { categoryId: 11 })],
  ["combien j'ai dépensé hier ?", 'fr', spending('2026-03-17', '2026-03-17')],
  ["combien j'ai gagné cette année ?", 'fr', spending(...YEAR, { type: 'income' })],
  ["combien j'ai dépensé en janvier ?", 'fr', spending('2026-01-01', '2026-01-31')],
  ['¿cuánto gasté el mes pasado?', 'es', spending(...LAST_MONTH)],
  // top categories
  ['top categories this year', 'en', top(...YEAR)],
  ['what are my biggest categories last month?', 'en', top(...LAST_MONTH)],
  ['where does my money go?', 'en', top(...MONTH)],
  ['show my spending categories', 'en', top(...MONTH)],
  ['principales catégories cette année', 'fr', top(...YEAR)],
  ['quelles sont mes plus grosses dépenses le mois dernier ?', 'fr', top(...LAST_MONTH)],
  ['où va mon argent ?', 'fr', top(...MONTH)],
  // budgets
  ['am I over budget?', 'en', BUDGETS],
  ['how are my budgets doing?', 'en', BUDGETS],
  ['show budgets', 'en', BUDGETS],
  ['est-ce que je dépasse mon budget ?', 'fr', BUDGETS],
  ['où en sont mes budgets ?', 'fr', BUDGETS],
  ['¿estoy por encima del presupuesto?', 'es', BUDGETS],
  // recent transactions
  ['show my last 3 transactions', 'en', recent(3)],
  ['recent transactions', 'en', recent(5)],
  ['what are my latest expenses?', 'en', recent(5)],
  ['montre mes 10 dernières transactions', 'fr', recent(10)],
  ['mes dernières opérations', 'fr', recent(5)],
  ['zeige meine letzten 4 Transaktionen', 'de', recent(4)],
  // anything else: help
  ['hello', 'en', HELP],
  ['what can you do?', 'en', HELP],
  ['bonjour', 'fr', HELP],
  ['aide', 'fr', HELP],
  ['blah blah', 'en', HELP],
  ['hola', 'es', HELP],
  ['hallo', 'de', HELP],
  ['tell me a joke', 'en', HELP],
];

t.test(`the parsing table (${TABLE.length} sentences)`, async (t) => {
  t.ok(TABLE.length >= 100);
  for (const [sentence, language, intent] of TABLE) {
    const parsed = parseSentence(sentence, { today: TODAY, names });
    t.same(parsed.intent, intent, sentence, { strict: true });
    t.equal(parsed.language, language, `${sentence} (language)`);
  }
});

t.test('amounts are exact decimal strings in every written form', async (t) => {
  const cases: Array<[string, string]> = [
    ['40', '40'], ['40.50', '40.50'], ['40,50', '40.50'], ['1 234,50', '1234.50'], ['1,234.50', '1234.50'], ['1.234,50', '1234.50'],
    ['1,234', '1234'], ['1.500', '1500'], ['12.3456', '12.3456'], ['1 000 000', '1000000'], ['0.1', '0.1'], ['9007199254740993.25', '9007199254740993.25'],
  ];
  for (const [written, plain] of cases) t.equal(plainDecimal(written), plain, written);
});

t.test('relative days follow the given local today, across month and year ends', async (t) => {
  t.equal(findDay('yesterday', '2026-01-01')?.day, '2025-12-31');
  t.equal(findDay('hier', '2026-03-01')?.day, '2026-02-28');
  t.equal(findDay('on the 31st', '2026-03-18')?.day, undefined, 'February has no 31st');
  t.equal(findDay('last friday', '2026-03-20')?.day, '2026-03-13', 'last Friday on a Friday is a week before');
  t.equal(findDay('il y a 3 jours', '2026-03-02')?.day, '2026-02-27');
  t.equal(addDays('2024-02-28', 1), '2024-02-29');
});

t.test('fuzzy matching forgives typos in long names only', async (t) => {
  t.equal(editDistance('chekcing', 'checking'), 1, 'a swap is one edit');
  const parse = (s: string) => parseSentence(s, { today: TODAY, names }).intent;
  t.same(parse('spent 5 at Ubr'), expense('5'), 'a three-letter typo is not a match');
  t.equal(fold('DÉJÀ’s'), "deja's");
});

t.test('the language of the request decides ties', async (t) => {
  t.equal(parseSentence('40', { today: TODAY, names, language: 'fr' }).language, 'fr');
  t.equal(parseSentence('40', { today: TODAY, names }).language, 'en');
});
