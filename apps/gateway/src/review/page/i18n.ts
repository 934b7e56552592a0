/** The page's language: the catalog the server embedded in #review-boot, plurals and formats by Intl. */

export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
interface Boot {
  locale: string;
  messages: Record<string, Message>;
}

const boot = JSON.parse(document.getElementById('review-boot')?.textContent ?? '{}') as Boot;
export const locale = boot.locale;
export const messages = boot.messages;
const pluralRules = new Intl.PluralRules(locale);
export const numbers = new Intl.NumberFormat(locale);
const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' });

type Params = Record<string, string | number | null | undefined>;

/** A catalog string with {placeholders}; plural entries are chosen by `count`. */
export function t(key: string, params: Params = {}): string {
  let message: Message | undefined = messages[key];
  if (message && typeof message === 'object') message = message[pluralRules.select(Number(params.count ?? 0))] ?? message.other;
  if (typeof message !== 'string') return key;
  return message.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    return typeof value === 'number' ? numbers.format(value) : value == null ? '' : String(value);
  });
}

export const formatDate = (iso: string | null): string => (iso ? dates.format(new Date(iso)) : '');
export const typeName = (dataType: string): string => (messages[`types.${dataType}`] ? t(`types.${dataType}`) : dataType);
/** A file's text in a list of choices, isolated (FSI…PDI): an option cannot hold a <bdi>. */
export const isolate = (text: string): string => `\u2068${text}\u2069`;
