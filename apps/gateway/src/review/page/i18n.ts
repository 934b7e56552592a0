/** The page's language: the catalog the server embedded in #review-boot, plurals and formats by Intl. */

import { embeddedCatalog } from '../../web-shared/page/catalog';

export type { Message, Params } from '../../web-shared/page/catalog';

const catalog = embeddedCatalog('review-boot');
export const locale = catalog.locale;
export const messages = catalog.messages;
export const numbers = catalog.numbers;
export const t = catalog.t;
const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short' });

export const formatDate = (iso: string | null): string => (iso ? dates.format(new Date(iso)) : '');
/** Items of a list as the page's language separates them ("a, b" in most; Arabic's own comma, "a، b"): no "and", a list of names. */
export const listOf = (items: readonly string[]): string => items.join(t('list_separator'));
export const typeName = (dataType: string): string => (messages[`types.${dataType}`] ? t(`types.${dataType}`) : dataType);
/**
 * Bidirectional controls in a file's text (embeddings, overrides, isolates), shown as what they are:
 * inside a value they reorder what the reviewer reads ("\u202Eevil" is drawn "live") while the output
 * keeps them, and a <bdi> keeps them from the page around the value, not from the value itself.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
export const shownText = (text: string): string =>
  text.replace(BIDI_CONTROLS, (c) => `\u27E8U+${c.codePointAt(0)!.toString(16).toUpperCase()}\u27E9`);

/** A file's text in a list of choices, isolated (FSI…PDI): an option cannot hold a <bdi>. */
export const isolate = (text: string): string => `\u2068${shownText(text)}\u2069`;

/** A value as a line of text quotes it: cut past `max` characters (a cell of 100,000 characters made the page as wide). */
export function cutText(value: string, max = 60): string {
  const chars = Array.from(value);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : value;
}
