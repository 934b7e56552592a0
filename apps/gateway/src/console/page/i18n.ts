/** The console's words: the catalog the server embedded in #console-boot, numbers and dates by Intl. */

export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
interface Boot {
  locale: string;
  messages: Record<string, Message>;
}

const boot = JSON.parse(document.getElementById('console-boot')?.textContent ?? '{}') as Boot;
export const locale = boot.locale ?? 'en';
const messages = boot.messages ?? {};
const pluralRules = new Intl.PluralRules(locale);
export const numbers = new Intl.NumberFormat(locale);
const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const days = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' });

type Params = Record<string, string | number | null | undefined>;

/** A catalog string with {placeholders}; plural entries are chosen by `count`. A missing key shows itself (tests catch it). */
export function t(key: string, params: Params = {}): string {
  let message: Message | undefined = messages[key];
  if (message && typeof message === 'object') message = message[pluralRules.select(Number(params.count ?? 0))] ?? message.other;
  if (typeof message !== 'string') return key;
  return message.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    return typeof value === 'number' ? numbers.format(value) : value == null ? '' : String(value);
  });
}

/** Whether the catalog has a key (for words chosen by a value, e.g. an event type). */
export const has = (key: string): boolean => key in messages;
export const formatDate = (iso: string | null | undefined): string => (iso ? dates.format(new Date(iso)) : '—');
export const formatDay = (isoDay: string): string => days.format(new Date(`${isoDay}T00:00:00Z`));
