/**
 * The normalisers that suit each field type, beside `trim`, which suits every field: the
 * review page offers these, and a fix asking another of a field is refused (a `date` normaliser
 * rewrites dates into the pattern the field delivers, which only a date field has; `amount` writes
 * a number only a number field checks). A type not named here (string, text, email, enum, ...)
 * has trimming only.
 *
 * This module imports nothing: the review page's browser bundle imports it too.
 */
export const SUITED_NORMALISERS: Readonly<Record<string, readonly string[]>> = {
  boolean: ['boolean'],
  number: ['amount'],
  integer: ['amount'],
  url: ['url'],
  date: ['date'],
  datetime: ['date'],
};

/** The normalisers a field of `dataType` offers, trimming last. */
export const normalisersFor = (dataType: string): string[] => [
  // Own keys only: a data_type is any text a schema gives ("constructor" is one), not only the types named here.
  ...(Object.hasOwn(SUITED_NORMALISERS, dataType) ? SUITED_NORMALISERS[dataType] : []),
  'trim',
];

/** Whether a normaliser may be applied to a field of `dataType`. */
export const suitsField = (normaliser: string, dataType: string): boolean => normalisersFor(dataType).includes(normaliser);
