/**
 * A page's words in the browser (the review page's and the console's): the catalog the server
 * embedded in a `<script type="application/json">`, with plurals and numbers by Intl.
 */

export type Message = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Params = Record<string, string | number | null | undefined>;

export interface Catalog {
  locale: string;
  messages: Record<string, Message>;
  numbers: Intl.NumberFormat;
  /** A catalog string with {placeholders}; plural entries are chosen by `count`; a missing key shows itself. */
  t: (key: string, params?: Params) => string;
}

/** The catalog embedded in the element with this id (`{locale, messages}`). */
export function embeddedCatalog(elementId: string): Catalog {
  const boot = JSON.parse(document.getElementById(elementId)?.textContent ?? '{}') as {
    locale?: string;
    messages?: Record<string, Message>;
  };
  const locale = boot.locale ?? 'en';
  const messages = boot.messages ?? {};
  const pluralRules = new Intl.PluralRules(locale);
  const numbers = new Intl.NumberFormat(locale);
  const t = (key: string, params: Params = {}): string => {
    let message: Message | undefined = messages[key];
    if (message && typeof message === 'object') message = message[pluralRules.select(Number(params.count ?? 0))] ?? message.other;
    if (typeof message !== 'string') return key;
    return message.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      return typeof value === 'number' ? numbers.format(value) : value == null ? '' : String(value);
    });
  };
  return { locale, messages, numbers, t };
}
