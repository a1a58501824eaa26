// Days and periods as people say them, relative to the user's local today (computed by the
// caller in the user's time zone from the injectable clock): "yesterday", "hier", "2 days
// ago", "il y a 2 jours", "last Friday", "vendredi dernier", "on the 3rd", "le 3", an ISO date;
// and for questions "this month", "le mois dernier", "this year", "last 7 days", "in March".

export interface FoundDay {
  /** YYYY-MM-DD, in the user's calendar. */
  day: string;
  start: number;
  end: number;
}

export interface Period {
  from: string;
  to: string;
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;

/** `day` moved by `days` (calendar arithmetic on UTC dates, so no time zone is involved). */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

const weekdayOf = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const pad = (n: number) => String(n).padStart(2, '0');
const monthStart = (year: number, month: number) => `${year}-${pad(month)}-01`;
const monthEnd = (year: number, month: number) => `${year}-${pad(month)}-${pad(daysInMonth(year, month))}`;

/** Weekday words (folded), Sunday first, in English, French, Spanish and German. */
const WEEKDAYS: string[][] = [
  ['sunday', 'dimanche', 'domingo', 'sonntag'],
  ['monday', 'lundi', 'lunes', 'montag'],
  ['tuesday', 'mardi', 'martes', 'dienstag'],
  ['wednesday', 'mercredi', 'miercoles', 'mittwoch'],
  ['thursday', 'jeudi', 'jueves', 'donnerstag'],
  ['friday', 'vendredi', 'viernes', 'freitag'],
  ['saturday', 'samedi', 'sabado', 'samstag'],
];
const WEEKDAY_WORD = WEEKDAYS.flat().join('|');
const weekdayNumber = (word: string) => WEEKDAYS.findIndex((names) => names.includes(word));

const MONTHS: string[][] = [
  ['january', 'janvier', 'enero', 'januar'],
  ['february', 'fevrier', 'febrero', 'februar'],
  ['march', 'mars', 'marzo', 'marz'],
  ['april', 'avril', 'abril'],
  ['may', 'mai', 'mayo'],
  ['june', 'juin', 'junio', 'juni'],
  ['july', 'juillet', 'julio', 'juli'],
  ['august', 'aout', 'agosto'],
  ['september', 'septembre', 'septiembre'],
  ['october', 'octobre', 'octubre', 'oktober'],
  ['november', 'novembre', 'noviembre'],
  ['december', 'decembre', 'diciembre', 'dezember'],
];
const MONTH_WORD = MONTHS.flat().join('|');
const monthNumber = (word: string) => MONTHS.findIndex((names) => names.includes(word)) + 1;

const SMALL_NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, un: 1, une: 1, two: 2, deux: 2, three: 3, trois: 3, four: 4, quatre: 4, five: 5, cinq: 5, dos: 2, tres: 3, zwei: 2, drei: 3 };
const countOf = (word: string) => (/^\d+$/.test(word) ? Number(word) : (SMALL_NUMBERS[word] ?? NaN));
const COUNT = `\\d{1,3}|a|an|one|un|une|two|deux|three|trois|four|quatre|five|cinq|dos|tres|zwei|drei`;

/** The most recent `weekday` strictly before `today`. */
function previousWeekday(today: string, weekday: number): string {
  const back = (weekdayOf(today) - weekday + 7) % 7 || 7;
  return addDays(today, -back);
}

/** Day `n` of this month when it has passed (or is today), else of the month before. */
function recentDayOfMonth(today: string, n: number): string | undefined {
  let [year, month] = today.split('-').map(Number);
  if (n > Number(today.slice(8, 10))) {
    month -= 1;
    if (month === 0) [year, month] = [year - 1, 12];
  }
  return n >= 1 && n <= daysInMonth(year, month) ? `${year}-${pad(month)}-${pad(n)}` : undefined;
}

type DayRule = [RegExp, (match: RegExpExecArray, today: string) => string | undefined];

const DAY_RULES: DayRule[] = [
  [/\b(?:on |le |el |am )?(\d{4}-\d{2}-\d{2})\b/, (m) => (Number.isNaN(Date.parse(`${m[1]}T00:00:00Z`)) ? undefined : m[1])],
  [/\b(?:the )?day before yesterday\b|\bavant[- ]hier\b|\banteayer\b|\bvorgestern\b/, (_m, today) => addDays(today, -2)],
  [/\byesterday\b|\bhier\b|\bayer\b|\bgestern\b/, (_m, today) => addDays(today, -1)],
  [/\btoday\b|\baujourd'?hui\b|\bhoy\b|\bheute\b|\bthis morning\b|\btonight\b|\bce (?:matin|soir)\b/, (_m, today) => today],
  [new RegExp(`\\b(${COUNT}) (days?|weeks?) ago\\b`), (m, today) => addDays(today, -countOf(m[1]) * (m[2].startsWith('week') ? 7 : 1))],
  [new RegExp(`\\bil y a (${COUNT}) (jours?|semaines?)\\b`), (m, today) => addDays(today, -countOf(m[1]) * (m[2].startsWith('semaine') ? 7 : 1))],
  [new RegExp(`\\bhace (${COUNT}) (dias?|semanas?)\\b`), (m, today) => addDays(today, -countOf(m[1]) * (m[2].startsWith('semana') ? 7 : 1))],
  [new RegExp(`\\bvor (${COUNT}) (tagen?|wochen?)\\b`), (m, today) => addDays(today, -countOf(m[1]) * (m[2].startsWith('woche') ? 7 : 1))],
  [new RegExp(`\\b(?:last|on|le|el|am|letzten) (${WEEKDAY_WORD})(?: (?:dernier|passe|pasado))?\\b`), (m, today) => previousWeekday(today, weekdayNumber(m[1]))],
  [new RegExp(`\\b(${WEEKDAY_WORD}) (?:dernier|passe|pasado)\\b`), (m, today) => previousWeekday(today, weekdayNumber(m[1]))],
  [/\b(?:on )?the (\d{1,2})(?:st|nd|rd|th)\b|\bon the (\d{1,2})\b/, (m, today) => recentDayOfMonth(today, Number(m[1] ?? m[2]))],
  [/\b(?:le|el|am) (\d{1,2})(?:er|\.)?(?= |$|,)(?! ?(?:[$€£]|eur|usd|euros?|dollars?|\d))/, (m, today) => recentDayOfMonth(today, Number(m[1]))],
  [new RegExp(`\\b(?:on |le |el |am )?(\\d{1,2})(?:st|nd|rd|th|er)? (${MONTH_WORD})\\b`), (m, today) => dayInRecentMonth(today, monthNumber(m[2]), Number(m[1]))],
];

/** Day `n` of the most recent `month` that is not in the future. */
function dayInRecentMonth(today: string, month: number, n: number): string | undefined {
  let year = Number(today.slice(0, 4));
  if (`${year}-${pad(month)}-${pad(n)}` > today) year -= 1;
  return n >= 1 && n <= daysInMonth(year, month) ? `${year}-${pad(month)}-${pad(n)}` : undefined;
}

/** The first day the folded sentence names, relative to `today` (YYYY-MM-DD). */
export function findDay(folded: string, today: string): FoundDay | undefined {
  for (const [pattern, dayOf] of DAY_RULES) {
    const match = pattern.exec(folded);
    if (!match) continue;
    const day = dayOf(match, today);
    if (day) return { day, start: match.index, end: match.index + match[0].length };
  }
  return undefined;
}

type PeriodRule = [RegExp, (match: RegExpExecArray, today: string) => [string, string]];

const year = (today: string) => Number(today.slice(0, 4));
const month = (today: string) => Number(today.slice(5, 7));
const mondayOf = (day: string) => addDays(day, -((weekdayOf(day) + 6) % 7));

const PERIOD_RULES: PeriodRule[] = [
  [/\blast month\b|\ble mois (?:dernier|passe|precedent)\b|\bel mes pasado\b|\bletzten monat\b|\bvormonat\b/, (_m, today) => {
    const [y, mo] = month(today) === 1 ? [year(today) - 1, 12] : [year(today), month(today) - 1];
    return [monthStart(y, mo), monthEnd(y, mo)];
  }],
  [/\bthis month\b|\bce mois(?:-ci| ci)?\b|\beste mes\b|\bdiesen monat\b|\bdiesem monat\b/, (_m, today) => [monthStart(year(today), month(today)), today]],
  [/\blast year\b|\bl'?an(?:nee)? (?:dernier|derniere|passe|passee)\b|\bel ano pasado\b|\bletztes jahr\b|\bletzten jahr\b/, (_m, today) => [`${year(today) - 1}-01-01`, `${year(today) - 1}-12-31`]],
  [/\bthis year\b|\bcette annee\b|\bcet(?:te)? an\b|\beste ano\b|\bdieses jahr\b|\bdiesem jahr\b/, (_m, today) => [`${year(today)}-01-01`, today]],
  [/\blast week\b|\bla semaine (?:derniere|passee)\b|\bla semana pasada\b|\bletzte woche\b/, (_m, today) => [addDays(mondayOf(today), -7), addDays(mondayOf(today), -1)]],
  [/\bthis week\b|\bcette semaine\b|\besta semana\b|\bdiese woche\b/, (_m, today) => [mondayOf(today), today]],
  [new RegExp(`\\b(?:last|past) (${COUNT}) days\\b|\\bles (${COUNT}) derniers jours\\b|\\blos ultimos (${COUNT}) dias\\b|\\bletzten (${COUNT}) tage\\b`), (m, today) => {
    const n = countOf(m[1] ?? m[2] ?? m[3] ?? m[4]);
    return [addDays(today, -(n - 1)), today];
  }],
  [new RegExp(`\\b(?:in|en|au mois de|im) (${MONTH_WORD})\\b`), (m, today) => {
    const mo = monthNumber(m[1]);
    const y = mo > month(today) ? year(today) - 1 : year(today);
    const end = monthEnd(y, mo);
    return [monthStart(y, mo), end < today ? end : today];
  }],
];

/** The period a folded question names (its first matching phrase), or undefined. */
export function findPeriod(folded: string, today: string): Period | undefined {
  for (const [pattern, bounds] of PERIOD_RULES) {
    const match = pattern.exec(folded);
    if (match) {
      const [from, to] = bounds(match, today);
      return { from, to, start: match.index, end: match.index + match[0].length };
    }
  }
  const day = findDay(folded, today);
  return day ? { from: day.day, to: day.day, start: day.start, end: day.end } : undefined;
}
