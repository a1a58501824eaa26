// The words the local assistant recognises, per language (folded: lower case, no accents).
// English and French are complete; Spanish and German cover the same intents with fewer
// forms. Each table is a regular expression source over whole words.

export const LANGUAGES = ['en', 'fr', 'es', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

const words = (list: string) => `\\b(?:${list.trim().split(/\s*\|\s*/).join('|')})\\b`;
const rx = (...lists: string[]) => new RegExp(lists.map(words).join('|'));

/** Each intent's cue words; an intent is read when its cue appears (the order of checks is in intents.ts). */
export const CUES = {
  transfer: rx(
    'move|moved|transfer|transferred|send|sent|shift',
    "vire|virer|virement|transfere|transferer|deplace|deplacer|bouge|bouger|mets|mettre|verse|verser",
    'transfiere|transferir|transferi|mueve|mover|movi|pasa|pasar',
    'uberweise|uberweisen|verschiebe|verschieben|ubertrage|ubertragen|buche um',
  ),
  income: rx(
    'got paid|get paid|was paid|received|receive|earned|earn|income|salary|paycheck|wage|wages|refund|refunded|reimbursed|sold',
    "recu|touche|toucher|gagne|gagner|salaire|revenu|revenus|rembourse|vendu|encaisse",
    'recibi|cobre|gane|ingreso|sueldo|salario|vendi',
    'erhalten|bekommen|verdient|gehalt|einnahme|lohn|verkauft',
  ),
  expense: rx(
    'spent|spend|paid|pay|bought|buy|cost|costs|expense|purchase|purchased|charged',
    "depense|depenser|paye|payer|achete|acheter|coute|coutait|dep|regle|regler",
    'gaste|gastado|gastar|pague|pagado|compre|comprado|gasto',
    'ausgegeben|bezahlt|gezahlt|gekauft|kostet|kostete|ausgabe',
  ),
  question: rx(
    'how much|how many|what|which|where|show|list|tell me|give me|do i|did i|am i|have i|is my|are my',
    'combien|quel|quels|quelle|quelles|ou va|montre|affiche|liste|donne|est-ce|ai-je|suis-je|dis-moi',
    'cuanto|cuanta|cuantos|cual|cuales|muestra|dime|estoy|tengo',
    'wie viel|wieviel|was|welche|zeig|zeige|bin ich|habe ich',
  ),
  balance: rx(
    'balance|balances|how much (?:money )?(?:do i have|is in|is on|have i got|left)|net worth|in my (?:wallets?|accounts?)|my (?:wallets|accounts)',
    "solde|soldes|combien (?:j'?ai|ai-je|il y a|reste)|sur mes comptes|mes comptes|mes portefeuilles|patrimoine",
    'saldo|saldos|cuanto tengo|mis cuentas|mis carteras',
    'kontostand|guthaben|saldo|wie viel habe ich|meine konten',
  ),
  budget: rx('budget|budgets|over budget|under budget|overspent|overspending', 'budget|budgets|depasse|depassement', 'presupuesto|presupuestos', 'budget|budgets|uberzogen'),
  recent: rx(
    'recent|latest|last (?:\\d+ )?transactions|last (?:\\d+ )?expenses|last (?:\\d+ )?payments|history',
    'recentes?|dernieres? (?:\\d+ )?(?:transactions|operations|depenses)|historique',
    'recientes?|ultimas? (?:\\d+ )?(?:transacciones|operaciones|gastos)',
    'letzten (?:\\d+ )?(?:transaktionen|buchungen|ausgaben)|neueste',
  ),
  top: rx(
    'top|biggest|largest|most|main|where does my money go|where did my money go',
    "principales?|plus grosses?|plus gros|le plus|ou va mon argent|ou est passe mon argent",
    'principales?|mayores|mas',
    'grossten|meisten|wohin geht mein geld',
  ),
  categories: rx('categories|category', 'categories|categorie|postes?', 'categorias?', 'kategorien|kategorie'),
  incomeQuestion: rx('earn|earned|income|make|made|receive|received', 'gagne|gagner|revenus?|recu|touche', 'gane|ingresos?|cobre', 'verdient|einnahmen|erhalten'),
  help: rx('help|hi|hello|hey|what can you do|start', 'aide|aidez|bonjour|salut|coucou|que sais-tu faire|que peux-tu faire', 'ayuda|hola|buenas', 'hilfe|hallo|guten tag|was kannst du'),
};

/** Words marking the wallet money leaves or enters ("from Checking", "into Savings", "sur le compte"). */
export const FROM_WORDS = 'from|out of|de|du|depuis|desde|von|vom';
export const TO_WORDS = 'to|into|in|onto|a|au|vers|sur|dans|hacia|en|nach|auf|zu|zum|in';

/** Words that link an expense to what it was for ("on dinner", "pour le dîner"): the description follows. */
export const PURPOSE_WORDS = /\b(?:on|for|pour|para|en|fur)\b/;

/** Words that never name a wallet, category or party on their own. */
export const STOP_WORDS = new Set(
  (
    'i me my the a an on at in into to from for of and with was is it got get paid pay spent spend bought buy move transfer send put my mine ' +
    'je j ai le la les un une des du de au aux sur dans pour avec mon ma mes depuis vers chez et est paye depense achete vire mets ' +
    'yo el los las mi mis en con para de desde ' +
    'ich habe hab der die das den dem ein eine fur mit von vom auf nach zu zum im in mein meine ' +
    'usd eur euro euros dollar dollars bucks today yesterday hier'
  ).split(' '),
);

/** Words in each language counted to guess the sentence's language. */
export const LANGUAGE_MARKERS: Record<Language, Set<string>> = {
  en: new Set('i the on my how much did spent spend paid got from to into what is are am at for last this month year yesterday my'.split(' ')),
  fr: new Set('j je ai le la les mes mon sur combien depense paye pour dans du de hier mois annee dernier quel suis chez au recu il jours vire vers bonjour salut aide sont ou est'.split(' ')),
  es: new Set('yo mi mis cuanto gaste pague ayer el los las en mes ano pasado tengo desde hacia recibi hola ayuda sueldo transfiere estoy por del presupuesto'.split(' ')),
  de: new Set('ich habe wie viel meine mein fur gestern auf nach von im monat jahr letzten ausgegeben bezahlt hallo hilfe gehalt erhalten uberweise zeige'.split(' ')),
};

/**
 * Spending concepts: words that say what an expense was for, and the category names (in the
 * four languages) that such an expense belongs to. The first user category matching a name
 * of the concept is the guess.
 */
export const CONCEPTS: Array<{ cues: RegExp; names: string[]; type: 'expense' | 'income' }> = [
  {
    type: 'expense',
    cues: rx('dinner|lunch|breakfast|restaurant|meal|food|pizza|burger|sushi|coffee|cafe|drinks|takeaway|brunch', 'diner|dejeuner|resto|restaurant|repas|cafe|boulangerie|pizza', 'cena|comida|almuerzo|desayuno|restaurante', 'abendessen|mittagessen|fruhstuck|restaurant|essen|kaffee'),
    names: ['restaurants', 'restaurant', 'dining', 'food', 'food & dining', 'eating out', 'alimentation', 'restauration', 'nourriture', 'comida', 'restaurantes', 'essen', 'lebensmittel'],
  },
  {
    type: 'expense',
    cues: rx('groceries|grocery|supermarket|market', 'courses|supermarche|epicerie|marche', 'supermercado|mercado|compras', 'supermarkt|einkauf|lebensmittel'),
    names: ['groceries', 'food', 'courses', 'alimentation', 'epicerie', 'comestibles', 'supermercado', 'lebensmittel'],
  },
  {
    type: 'expense',
    cues: rx('taxi|uber|bus|train|metro|subway|fuel|gas|petrol|parking|ticket|transport', 'taxi|essence|carburant|bus|train|metro|peage|parking|transport', 'taxi|gasolina|autobus|tren|metro', 'taxi|benzin|tanken|bahn|zug|parken'),
    names: ['transportation', 'transport', 'transports', 'travel', 'car', 'voiture', 'transporte', 'verkehr'],
  },
  {
    type: 'expense',
    cues: rx('rent|mortgage', 'loyer|hypotheque', 'alquiler|hipoteca', 'miete|hypothek'),
    names: ['housing', 'rent', 'logement', 'loyer', 'vivienda', 'wohnen', 'miete'],
  },
  {
    type: 'expense',
    cues: rx('electricity|water|internet|phone|utilities|bill', 'electricite|eau|internet|telephone|facture', 'luz|agua|internet|telefono|factura', 'strom|wasser|internet|telefon|rechnung'),
    names: ['utilities', 'bills', 'factures', 'services publics', 'suministros', 'nebenkosten'],
  },
  {
    type: 'expense',
    cues: rx('movie|movies|cinema|concert|concerts|netflix|game|games', 'cinema|film|films|concert|jeu|sortie', 'cine|pelicula|concierto', 'kino|film|konzert|spiel'),
    names: ['entertainment', 'loisirs', 'divertissement', 'sorties', 'entretenimiento', 'ocio', 'unterhaltung'],
  },
  {
    type: 'expense',
    cues: rx('doctor|pharmacy|medicine|dentist|hospital', 'medecin|pharmacie|medicament|dentiste|hopital', 'medico|farmacia|medicina|dentista', 'arzt|apotheke|medikament|zahnarzt'),
    names: ['healthcare', 'health', 'sante', 'salud', 'gesundheit'],
  },
  {
    type: 'expense',
    cues: rx('clothes|shoes|shopping|amazon', 'vetements|chaussures|shopping', 'ropa|zapatos', 'kleidung|schuhe'),
    names: ['shopping', 'clothing', 'achats', 'vetements', 'compras', 'ropa', 'einkaufen', 'kleidung'],
  },
  {
    type: 'income',
    cues: rx('salary|paycheck|wage|wages|got paid|payroll', 'salaire|paie|paye', 'sueldo|salario|nomina', 'gehalt|lohn'),
    names: ['salary', 'salaire', 'salario', 'gehalt', 'wages'],
  },
  {
    type: 'income',
    cues: rx('freelance|client|invoice|gig', 'freelance|client|facture|mission', 'cliente|factura', 'kunde|rechnung|auftrag'),
    names: ['freelance', 'travail independant', 'trabajo independiente', 'freiberuflich'],
  },
  {
    type: 'income',
    cues: rx('refund|refunded|reimbursed|reimbursement', 'rembourse|remboursement', 'reembolso', 'erstattung|ruckerstattung'),
    names: ['refunds', 'remboursements', 'reembolsos', 'ruckerstattungen'],
  },
  {
    type: 'income',
    cues: rx('gift|present', 'cadeau', 'regalo', 'geschenk'),
    names: ['gifts', 'cadeaux', 'regalos', 'geschenke'],
  },
];
