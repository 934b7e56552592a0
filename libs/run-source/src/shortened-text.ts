import { ownCopy } from '@app/tabular';

/**
 * The most characters (UTF-16 code units) of one value the review sends to its page: a preview cell, a cell of the
 * rows with problems, a column sample. A row may hold up to MAX_ROW_CHARS (1,000,000) characters, so without a bound
 * a preview of 20 rows of four 250,000-character cells answered 20 MB of JSON and read them on the API's thread
 * (docs/decisions.md, "Long values in the review"). 2,000 characters is more than a table cell (20rem), its tooltip or
 * a column sample (60 characters, the page's cutText) shows, and more than any value a reviewer retypes in a cell's
 * editor; the output still delivers the whole value.
 */
export const REVIEW_VALUE_CHARS = 2000;

/**
 * `value` cut to its first `max` characters (one fewer when the cut would split a surrogate pair), and whether it was
 * cut. The cut is a copy of its own: a slice of a long string keeps the whole of it (and the reader's piece of text it
 * was sliced from) alive as long as the slice is, in a cache for instance.
 */
export function shortenedText(value: string, max = REVIEW_VALUE_CHARS): { text: string; shortened: boolean } {
  if (value.length <= max) return { text: value, shortened: false };
  const end = isHighSurrogate(value.charCodeAt(max - 1)) ? max - 1 : max;
  return { text: ownCopy(value.slice(0, end)), shortened: true };
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
