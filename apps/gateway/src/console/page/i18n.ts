/** The console's words: the catalog the server embedded in #console-boot, numbers and dates by Intl. */

import { embeddedCatalog } from '../../web-shared/page/catalog';

const catalog = embeddedCatalog('console-boot');
export const locale = catalog.locale;
export const numbers = catalog.numbers;
export const t = catalog.t;
const messages = catalog.messages;
const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const days = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** Whether the catalog has a key (for words chosen by a value, e.g. an event type). */
export const has = (key: string): boolean => key in messages;
export const formatDate = (iso: string | null | undefined): string => (iso ? dates.format(new Date(iso)) : '—');
export const formatDay = (isoDay: string): string => days.format(new Date(`${isoDay}T00:00:00Z`));
