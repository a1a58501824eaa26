// The predefined categories POST /categories/seed-defaults creates: 6 income and 15 expense
// categories, named and described in the six languages the clients use. English, German,
// Spanish and Italian texts are the reference's; French and Portuguese descriptions are ours.

export const SEED_LANGUAGES = ['en', 'fr', 'es', 'de', 'pt', 'it'] as const;
export type SeedLanguage = (typeof SEED_LANGUAGES)[number];

export interface DefaultCategory {
  type: 'income' | 'expense';
  name: string;
  description: string;
}

/** [name, description] in each language. */
type Texts = Record<SeedLanguage, readonly [string, string]>;

const INCOME: Texts[] = [
  {
    en: ['Salary', 'Regular employment income'],
    fr: ['Salaire', 'Revenus réguliers d’un emploi'],
    es: ['Salario', 'Ingresos regulares por empleo'],
    de: ['Gehalt', 'Regelmäßiges Arbeitseinkommen'],
    pt: ['Salário', 'Rendimento regular do emprego'],
    it: ['Stipendio', 'Reddito da lavoro dipendente'],
  },
  {
    en: ['Freelance', 'Contract/gig work'],
    fr: ['Travail indépendant', 'Missions et contrats ponctuels'],
    es: ['Trabajo independiente', 'Contratos y trabajos temporales'],
    de: ['Freiberuflich', 'Vertrags- und Auftragsarbeit'],
    pt: ['Freelance', 'Contratos e trabalhos pontuais'],
    it: ['Lavoro autonomo', 'Contratti e lavori occasionali'],
  },
  {
    en: ['Investments', 'Dividends, interest, capital gains'],
    fr: ['Investissements', 'Dividendes, intérêts, plus-values'],
    es: ['Inversiones', 'Dividendos, intereses, ganancias de capital'],
    de: ['Investitionen', 'Dividenden, Zinsen, Kapitalerträge'],
    pt: ['Investimentos', 'Dividendos, juros, ganhos de capital'],
    it: ['Investimenti', 'Dividendi, interessi, plusvalenze'],
  },
  {
    en: ['Gifts', 'Money received as gifts'],
    fr: ['Cadeaux', 'Argent reçu en cadeau'],
    es: ['Regalos', 'Dinero recibido como regalo'],
    de: ['Geschenke', 'Als Geschenk erhaltenes Geld'],
    pt: ['Presentes', 'Dinheiro recebido de presente'],
    it: ['Regali', 'Denaro ricevuto in regalo'],
  },
  {
    en: ['Refunds', 'Returns and reimbursements'],
    fr: ['Remboursements', 'Retours et remboursements'],
    es: ['Reembolsos', 'Devoluciones y reembolsos'],
    de: ['Rückerstattungen', 'Retouren und Erstattungen'],
    pt: ['Reembolsos', 'Devoluções e reembolsos'],
    it: ['Rimborsi', 'Resi e rimborsi'],
  },
  {
    en: ['Other Income', 'Miscellaneous income'],
    fr: ['Autres revenus', 'Revenus divers'],
    es: ['Otros ingresos', 'Ingresos diversos'],
    de: ['Sonstige Einnahmen', 'Verschiedene Einnahmen'],
    pt: ['Outras receitas', 'Receitas diversas'],
    it: ['Altre entrate', 'Entrate varie'],
  },
];

const EXPENSE: Texts[] = [
  {
    en: ['Food & Dining', 'Groceries, restaurants, takeout'],
    fr: ['Alimentation et restauration', 'Courses, restaurants, plats à emporter'],
    es: ['Alimentación y restaurantes', 'Supermercado, restaurantes, comida para llevar'],
    de: ['Essen und Gastronomie', 'Lebensmittel, Restaurants, Essen zum Mitnehmen'],
    pt: ['Alimentação e restaurantes', 'Supermercado, restaurantes, comida para levar'],
    it: ['Cibo e ristorazione', 'Spesa, ristoranti, asporto'],
  },
  {
    en: ['Transportation', 'Fuel, public transit, ride-share, parking'],
    fr: ['Transport', 'Carburant, transports en commun, covoiturage, stationnement'],
    es: ['Transporte', 'Combustible, transporte público, viajes compartidos, estacionamiento'],
    de: ['Transport', 'Kraftstoff, ÖPNV, Mitfahrgelegenheit, Parken'],
    pt: ['Transporte', 'Combustível, transporte público, caronas, estacionamento'],
    it: ['Trasporti', 'Carburante, trasporto pubblico, ride-sharing, parcheggio'],
  },
  {
    en: ['Housing', 'Rent, mortgage, repairs, maintenance'],
    fr: ['Logement', 'Loyer, prêt immobilier, réparations, entretien'],
    es: ['Vivienda', 'Alquiler, hipoteca, reparaciones, mantenimiento'],
    de: ['Wohnen', 'Miete, Hypothek, Reparaturen, Wartung'],
    pt: ['Moradia', 'Aluguel, financiamento, reparos, manutenção'],
    it: ['Alloggio', 'Affitto, mutuo, riparazioni, manutenzione'],
  },
  {
    en: ['Utilities', 'Electric, water, gas, internet, phone'],
    fr: ['Services publics', 'Électricité, eau, gaz, internet, téléphone'],
    es: ['Servicios públicos', 'Electricidad, agua, gas, internet, teléfono'],
    de: ['Nebenkosten', 'Strom, Wasser, Gas, Internet, Telefon'],
    pt: ['Serviços públicos', 'Eletricidade, água, gás, internet, telefone'],
    it: ['Utenze', 'Elettricità, acqua, gas, internet, telefono'],
  },
  {
    en: ['Healthcare', 'Medical, dental, pharmacy, insurance'],
    fr: ['Santé', 'Médecin, dentiste, pharmacie, assurance'],
    es: ['Salud', 'Médico, dental, farmacia, seguro'],
    de: ['Gesundheit', 'Arzt, Zahnarzt, Apotheke, Versicherung'],
    pt: ['Saúde', 'Médico, dentista, farmácia, seguro'],
    it: ['Sanità', 'Medico, dentista, farmacia, assicurazione'],
  },
  {
    en: ['Entertainment', 'Movies, games, streaming, hobbies'],
    fr: ['Divertissement', 'Cinéma, jeux, streaming, loisirs'],
    es: ['Entretenimiento', 'Películas, juegos, streaming, pasatiempos'],
    de: ['Unterhaltung', 'Filme, Spiele, Streaming, Hobbys'],
    pt: ['Entretenimento', 'Filmes, jogos, streaming, passatempos'],
    it: ['Intrattenimento', 'Film, giochi, streaming, hobby'],
  },
  {
    en: ['Shopping', 'Clothing, electronics, household items'],
    fr: ['Achats', 'Vêtements, électronique, articles ménagers'],
    es: ['Compras', 'Ropa, electrónica, artículos del hogar'],
    de: ['Einkaufen', 'Kleidung, Elektronik, Haushaltswaren'],
    pt: ['Compras', 'Roupas, eletrônicos, utilidades domésticas'],
    it: ['Acquisti', 'Abbigliamento, elettronica, articoli per la casa'],
  },
  {
    en: ['Personal Care', 'Haircuts, cosmetics, gym'],
    fr: ['Soins personnels', 'Coiffeur, cosmétiques, salle de sport'],
    es: ['Cuidado personal', 'Cortes de pelo, cosméticos, gimnasio'],
    de: ['Körperpflege', 'Friseur, Kosmetik, Fitnessstudio'],
    pt: ['Cuidados pessoais', 'Cabeleireiro, cosméticos, academia'],
    it: ['Cura personale', 'Taglio di capelli, cosmetici, palestra'],
  },
  {
    en: ['Education', 'Courses, books, tuition'],
    fr: ['Éducation', 'Cours, livres, frais de scolarité'],
    es: ['Educación', 'Cursos, libros, matrícula'],
    de: ['Bildung', 'Kurse, Bücher, Studiengebühren'],
    pt: ['Educação', 'Cursos, livros, mensalidades'],
    it: ['Istruzione', 'Corsi, libri, tasse scolastiche'],
  },
  {
    en: ['Subscriptions', 'Recurring services, memberships'],
    fr: ['Abonnements', 'Services récurrents, adhésions'],
    es: ['Suscripciones', 'Servicios recurrentes, membresías'],
    de: ['Abonnements', 'Wiederkehrende Dienste, Mitgliedschaften'],
    pt: ['Assinaturas', 'Serviços recorrentes, associações'],
    it: ['Abbonamenti', 'Servizi ricorrenti, iscrizioni'],
  },
  {
    en: ['Insurance', 'Auto, home, life (non-health)'],
    fr: ['Assurance', 'Auto, habitation, vie (hors santé)'],
    es: ['Seguros', 'Auto, hogar, vida (no salud)'],
    de: ['Versicherung', 'Auto, Haus, Leben (ohne Gesundheit)'],
    pt: ['Seguros', 'Automóvel, residência, vida (exceto saúde)'],
    it: ['Assicurazione', 'Auto, casa, vita (non sanitaria)'],
  },
  {
    en: ['Savings', 'Transfers to savings/investments'],
    fr: ['Épargne', 'Virements vers l’épargne ou les placements'],
    es: ['Ahorros', 'Transferencias a ahorros/inversiones'],
    de: ['Ersparnisse', 'Überweisungen an Ersparnisse/Investitionen'],
    pt: ['Poupança', 'Transferências para poupança/investimentos'],
    it: ['Risparmi', 'Trasferimenti a risparmi/investimenti'],
  },
  {
    en: ['Gifts & Donations', 'Charity, presents for others'],
    fr: ['Cadeaux et dons', 'Œuvres caritatives, cadeaux offerts'],
    es: ['Regalos y donaciones', 'Caridad, regalos para otros'],
    de: ['Geschenke und Spenden', 'Wohltätigkeit, Geschenke für andere'],
    pt: ['Presentes e doações', 'Caridade, presentes para outros'],
    it: ['Regali e donazioni', 'Beneficenza, regali per altri'],
  },
  {
    en: ['Travel', 'Vacations, hotels, flights'],
    fr: ['Voyage', 'Vacances, hôtels, vols'],
    es: ['Viajes', 'Vacaciones, hoteles, vuelos'],
    de: ['Reisen', 'Urlaub, Hotels, Flüge'],
    pt: ['Viagens', 'Férias, hotéis, voos'],
    it: ['Viaggi', 'Vacanze, hotel, voli'],
  },
  {
    en: ['Other Expenses', 'Miscellaneous spending'],
    fr: ['Autres dépenses', 'Dépenses diverses'],
    es: ['Otros gastos', 'Gastos diversos'],
    de: ['Sonstige Ausgaben', 'Verschiedene Ausgaben'],
    pt: ['Outras despesas', 'Despesas diversas'],
    it: ['Altre spese', 'Spese varie'],
  },
];

/** The defaults in one language, incomes first, in the reference's order. */
export function defaultCategories(language: SeedLanguage): DefaultCategory[] {
  const inLanguage = (type: DefaultCategory['type']) => (texts: Texts) => ({ type, name: texts[language][0], description: texts[language][1] });
  return [...INCOME.map(inLanguage('income')), ...EXPENSE.map(inLanguage('expense'))];
}

/**
 * The language of an Accept-Language header: the first listed language (by q-weight, then
 * order) whose first two letters are a supported language; else `fallback` (a user's
 * `default-lang` setting) when supported; English otherwise.
 */
export function seedLanguage(acceptLanguage: string | undefined, fallback?: string): SeedLanguage {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((entry, index) => {
      const [tag, ...params] = entry.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { code: tag.trim().slice(0, 2).toLowerCase(), weight: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((entry) => entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  const supported = ranked.find((entry) => (SEED_LANGUAGES as readonly string[]).includes(entry.code));
  const chosen = supported?.code ?? fallback?.slice(0, 2).toLowerCase();
  return (SEED_LANGUAGES as readonly string[]).includes(chosen ?? '') ? (chosen as SeedLanguage) : 'en';
}

/** How seed-defaults compares names: ignoring case and accents ("Éducation" = "education"). */
export function nameKey(name: string): string {
  return name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim();
}
