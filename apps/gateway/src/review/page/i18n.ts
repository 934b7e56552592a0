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
export const typeName = (dataType: string): string => (messages[`types.${dataType}`] ? t(`types.${dataType}`) : dataType);
/** A file's text in a list of choices, isolated (FSI…PDI): an option cannot hold a <bdi>. */
export const isolate = (text: string): string => `\u2068${text}\u2069`;
