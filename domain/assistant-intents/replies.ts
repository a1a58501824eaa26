// The local assistant's replies, written from what the read and write tools returned, in the
// language of the question (English, French, Spanish, German). Amounts are shown exactly as the
// ledger holds them (decimal strings), never recomputed in floating point. A reply is written in
// Markdown (the form a client opts into); its plain text is that Markdown read as text, or for
// answers with figures a summary sentence, the figures themselves going to the answer's results.
import { LANGUAGES, type Language } from './phrases.js';

type Lines = {
  help: string;
  proposed: (what: string) => string;
  expense: (amount: string) => string;
  income: (amount: string) => string;
  transfer: (amount: string, from: string, to: string) => string;
  noWallet: string;
  whichWallet: string;
  currencyMismatch: (currency: string, wallet: string, walletCurrency: string) => string;
  balances: string;
  /** Plain summary of the balances; `totals` like "960 USD, 50 EUR". */
  walletsSummary: (count: number, totals: string) => string;
  total: string;
  noWallets: string;
  spent: (from: string, to: string) => string;
  earned: (from: string, to: string) => string;
  /** Plain summaries of a spending or income total; `amounts` like "40 USD" or "40 USD, 10 EUR". */
  spentTotal: (amounts: string, from: string, to: string, category?: string) => string;
  earnedTotal: (amounts: string, from: string, to: string, category?: string) => string;
  nothingSpent: (from: string, to: string) => string;
  top: (from: string, to: string) => string;
  budgets: string;
  noBudgets: string;
  status: Record<string, string>;
  recent: string;
  noTransactions: string;
  refused: (reason: string) => string;
};

const CAPABILITIES: Record<Language, string[]> = {
  en: [
    '- record an expense: "I spent 40 USD on dinner at Mama\'s yesterday"',
    '- record an income: "got paid 2500 salary into Checking"',
    '- move money: "move 200 from Checking to Savings"',
    '- balances: "how much is in my wallets?"',
    '- spending: "how much did I spend on food last month?", "top categories this year"',
    '- budgets: "am I over budget?"',
    '- recent transactions: "show my last 5 transactions"',
  ],
  fr: [
    '- noter une dépense : "j\'ai dépensé 40 € au restaurant hier"',
    '- noter un revenu : "reçu 2500 de salaire sur le compte courant"',
    '- virer de l\'argent : "vire 200 du compte courant vers l\'épargne"',
    '- les soldes : "combien j\'ai sur mes comptes ?"',
    '- les dépenses : "combien ai-je dépensé en restaurants le mois dernier ?", "principales catégories cette année"',
    '- les budgets : "est-ce que je dépasse mon budget ?"',
    '- les dernières transactions : "montre mes 5 dernières transactions"',
  ],
  es: [
    '- anotar un gasto: "gasté 40 € en la cena ayer"',
    '- anotar un ingreso: "recibí 2500 de sueldo"',
    '- mover dinero: "transfiere 200 de Cuenta a Ahorros"',
    '- saldos: "¿cuánto tengo en mis cuentas?"',
    '- gastos: "¿cuánto gasté en comida el mes pasado?"',
    '- presupuestos: "¿estoy por encima del presupuesto?"',
    '- transacciones recientes: "muestra mis últimas 5 transacciones"',
  ],
  de: [
    '- eine Ausgabe erfassen: "ich habe gestern 40 € für Essen ausgegeben"',
    '- eine Einnahme erfassen: "2500 Gehalt erhalten"',
    '- Geld umbuchen: "überweise 200 von Girokonto auf Sparkonto"',
    '- Kontostände: "wie viel habe ich auf meinen Konten?"',
    '- Ausgaben: "wie viel habe ich letzten Monat für Essen ausgegeben?"',
    '- Budgets: "bin ich über dem Budget?"',
    '- letzte Buchungen: "zeige meine letzten 5 Transaktionen"',
  ],
};

const EN: Lines = {
  help: 'I answer without a language model, so I understand short requests like these:',
  proposed: (what) => `${what} It is waiting for your confirmation below; nothing is recorded until you confirm.`,
  expense: (amount) => `I prepared an expense of ${amount}.`,
  income: (amount) => `I prepared an income of ${amount}.`,
  transfer: (amount, from, to) => `I prepared a transfer of ${amount} from ${from} to ${to}.`,
  noWallet: 'You have no wallet yet: create one first, then tell me again.',
  whichWallet: 'Which wallets? Say for example "move 200 from Checking to Savings".',
  currencyMismatch: (currency, wallet, walletCurrency) => `You wrote ${currency}, but ${wallet} is in ${walletCurrency}: name a wallet in ${currency}.`,
  balances: 'Your wallets:',
  walletsSummary: (count, totals) => `You have ${count} ${count === 1 ? 'wallet' : 'wallets'}. Total: ${totals}.`,
  total: 'Total',
  noWallets: 'You have no wallet yet.',
  spent: (from, to) => `Spent from ${from} to ${to}:`,
  earned: (from, to) => `Received from ${from} to ${to}:`,
  spentTotal: (amounts, from, to, category) => `You spent ${amounts}${category ? ` on ${category}` : ''} from ${from} to ${to}.`,
  earnedTotal: (amounts, from, to, category) => `You received ${amounts}${category ? ` in ${category}` : ''} from ${from} to ${to}.`,
  nothingSpent: (from, to) => `Nothing recorded from ${from} to ${to}.`,
  top: (from, to) => `Top categories from ${from} to ${to}:`,
  budgets: 'Your budgets this period:',
  noBudgets: 'You have no budget yet.',
  status: { on_track: 'on track', near_limit: 'near its limit', forecast_breach: 'heading over', over_budget: 'over budget' },
  recent: 'Your latest transactions:',
  noTransactions: 'You have no transaction yet.',
  refused: (reason) => `I could not prepare that: ${reason}`,
};

const FR: Lines = {
  help: 'Je réponds sans modèle de langue : je comprends des demandes courtes comme celles-ci :',
  proposed: (what) => `${what} Elle attend votre confirmation ci-dessous ; rien n'est enregistré avant.`,
  expense: (amount) => `J'ai préparé une dépense de ${amount}.`,
  income: (amount) => `J'ai préparé une opération de revenu de ${amount}.`,
  transfer: (amount, from, to) => `J'ai préparé une opération de virement de ${amount} de ${from} vers ${to}.`,
  noWallet: "Vous n'avez pas encore de portefeuille : créez-en un, puis redites-le-moi.",
  whichWallet: 'Quels portefeuilles ? Dites par exemple "vire 200 du compte courant vers Épargne".',
  currencyMismatch: (currency, wallet, walletCurrency) => `Vous avez écrit ${currency}, mais ${wallet} est en ${walletCurrency} : indiquez un portefeuille en ${currency}.`,
  balances: 'Vos portefeuilles :',
  walletsSummary: (count, totals) => `Vous avez ${count} portefeuille${count === 1 ? '' : 's'}. Total : ${totals}.`,
  total: 'Total',
  noWallets: "Vous n'avez pas encore de portefeuille.",
  spent: (from, to) => `Dépensé du ${from} au ${to} :`,
  earned: (from, to) => `Reçu du ${from} au ${to} :`,
  spentTotal: (amounts, from, to, category) => `Vous avez dépensé ${amounts}${category ? ` en ${category}` : ''} du ${from} au ${to}.`,
  earnedTotal: (amounts, from, to, category) => `Vous avez reçu ${amounts}${category ? ` en ${category}` : ''} du ${from} au ${to}.`,
  nothingSpent: (from, to) => `Rien d'enregistré du ${from} au ${to}.`,
  top: (from, to) => `Principales catégories du ${from} au ${to} :`,
  budgets: 'Vos budgets pour la période :',
  noBudgets: "Vous n'avez pas encore de budget.",
  status: { on_track: 'dans les clous', near_limit: 'proche de la limite', forecast_breach: 'en voie de dépassement', over_budget: 'dépassé' },
  recent: 'Vos dernières transactions :',
  noTransactions: "Vous n'avez pas encore de transaction.",
  refused: (reason) => `Je n'ai pas pu le préparer : ${reason}`,
};

/** Spanish and German: the list of what the assistant understands; the figures read in English. */
export const LINES: Record<Language, Lines> = {
  en: EN,
  fr: FR,
  es: { ...EN, help: 'Respondo sin modelo de lenguaje, así que entiendo peticiones cortas como estas:' },
  de: { ...EN, help: 'Ich antworte ohne Sprachmodell und verstehe kurze Anfragen wie diese:' },
};

/** Budget statuses in words of the reply's language (a code like `fr`; English for any other). */
export function statusWords(language: string | null | undefined): Record<string, string> {
  return LINES[LANGUAGES.find((known) => known === language) ?? 'en'].status;
}

/** What the assistant can do, as a Markdown list in the user's language. */
export function helpReply(language: Language): string {
  return [LINES[language].help, '', ...CAPABILITIES[language]].join('\n');
}

/** A heading followed by one bullet per line. */
export function listReply(heading: string, lines: string[]): string {
  return [heading, '', ...lines.map((line) => `- ${line}`)].join('\n');
}
