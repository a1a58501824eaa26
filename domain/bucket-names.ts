// Names of the statistics buckets that hold transactions without a category or without a
// party, in the languages the service answers in (those of the default categories, chosen
// from Accept-Language). A party chart says "No party", never "Uncategorized": the income of a
// salary filed under Salary with no payer named is not uncategorised.
import type { SeedLanguage } from './default-categories.js';

/** The category bucket keeps the reference's name (clients may match it). */
export const NO_CATEGORY = 'Uncategorized';

export const NO_PARTY: Record<SeedLanguage, string> = {
  en: 'No party',
  fr: 'Sans tiers',
  es: 'Sin contraparte',
  de: 'Ohne Gegenpartei',
  pt: 'Sem contraparte',
  it: 'Senza controparte',
};
