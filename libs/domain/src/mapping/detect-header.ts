import { isEmailAddress } from '../fields/typed-value';
/**
 * Decides whether the first row of a table is a header, from a sample of its first rows.
 * A header row has no empty cells and no cell that looks like data (a number or a date), and its names are unique,
 * or (an export that names two columns alike: "E-Mail" for the contact's and the company's) mostly unique over a
 * column whose values are not text like its name (repeatedNamesOverData). An empty cell over a column that is empty in the rows below it does not count: that is a
 * trailing delimiter (`E-Mail,Note,`) or a sheet whose data starts in column B, and a whole header lost over it made
 * the header row the first record. Past the first row's last value, "empty" allows a value in one row in ten below
 * it (`STRAY_VALUES_PER_ROW`): a row broken by an unquoted comma spills its last value under the trailing delimiter,
 * and one such row in the sample used to turn the header into the first record. Before it (column A, a gap between
 * names) a broken row puts no value there, so every row below must be empty. When every
 * column is text the first row is taken as a header: that is what most exports have; the
 * caller can override with `input_has_header`.
 */
/**
 * A number or a date-like start, for a trimmed cell. Written without neighbouring
 * quantifiers that can match the same characters (the former `.*\s*$` tail backtracked
 * quadratically on a long run of spaces before a line break): linear in the cell's length.
 */
const DATA_LIKE = /^(?:[+-]?[\d.,]+%?|\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}[^\n\r\u2028\u2029]*)$/;

/** Rows below the first that may hold a value under an empty header cell, per row of them (rounded down). */
const STRAY_VALUES_PER_ROW = 0.1;

export function detectHeader(sample: string[][]): boolean {
  const [first, ...below] = sample;
  if (!first || first.length === 0) return false;
  const trimmed = first.map((c) => c.trim());
  // Only rows below the first tell that a column is empty: a file of one row keeps the rule as it was. Under ten
  // rows below, every one of them must be empty there.
  let lastNamed = trimmed.length - 1;
  while (lastNamed >= 0 && trimmed[lastNamed] === '') lastNamed--;
  const strayAllowed = Math.floor(below.length * STRAY_VALUES_PER_ROW);
  const emptyColumn = (i: number) =>
    below.length > 0 && below.filter((row) => (row[i] ?? '').trim() !== '').length <= (i > lastNamed ? strayAllowed : 0);
  if (trimmed.some((c, i) => c === '' && !emptyColumn(i))) return false;
  const named = trimmed.filter((c) => c !== '');
  if (named.length === 0 || named.some((c) => DATA_LIKE.test(c))) return false;
  // An e-mail address over a column of them is the table's first record, not a name (a name that only shows one,
  // "Email (name@example.com)", is still a name).
  if (trimmed.some((c, i) => isEmailAddress(c) && mostly(columnBelow(below, i), isEmailAddress))) return false;
  const distinct = new Set(named).size;
  return distinct === named.length || (distinct >= 2 && distinct * 2 > named.length && repeatedNamesOverData(trimmed, below));
}

/** A cell a record leaves for "no value": never a column's name, and repeated in a record as names never are. */
const PLACEHOLDER = /^(?:n\/?a|none|null|nil|unknown|tbd|tba|k\.?\s?a\.?|x|-+|\?+|\.+)$/i;

/**
 * Whether a row whose names repeat is a header all the same: every repeated name is a word (letters, not a
 * placeholder such as n/a), and some name is over a column whose values are mostly data-like (numbers, dates) or
 * e-mail addresses while it is neither.
 */
function repeatedNamesOverData(first: readonly string[], below: readonly string[][]): boolean {
  // A headerless file's first record repeats values too ("Berlin,Berlin", "n/a,n/a" over numbers): the names count
  // only as words over a column whose values are of another kind, which a record over records of the same table is not.
  const seen = new Set<string>();
  for (const name of first) {
    if (name === '') continue;
    if (seen.has(name) && (!/\p{L}/u.test(name) || PLACEHOLDER.test(name))) return false;
    seen.add(name);
  }
  const dataOrAddress = (value: string) => DATA_LIKE.test(value) || isEmailAddress(value);
  return first.some(
    (name, i) => /\p{L}/u.test(name) && !PLACEHOLDER.test(name) && !isEmailAddress(name) && mostly(columnBelow(below, i), dataOrAddress),
  );
}

/** The values of column `i` in these rows, trimmed, the empty ones left out. */
const columnBelow = (below: readonly string[][], i: number): string[] => below.map((row) => (row[i] ?? '').trim()).filter((v) => v !== '');

/** Whether more than half of these values (one at least) are so. */
const mostly = (values: readonly string[], test: (value: string) => boolean): boolean =>
  values.length > 0 && values.filter(test).length * 2 > values.length;

/** Rows a title may take above a table's header: a report's name, the date it was made, a note, a blank-free spacer. */
export const MAX_ROWS_ABOVE_HEADER = 5;

/** A cell that is a plain number: a record's id or amount, never a title. */
const PLAIN_NUMBER = /^[+-]?[\d.,]+%?$/;

const valuesIn = (row: readonly string[]): number => row.reduce((n, cell) => (cell.trim() === '' ? n : n + 1), 0);

/** A cell's shape: each run of letters `a`, each run of digits `9`, other characters kept ("B-200" is "a-9"). */
const shapeOf = (cell: string): string => cell.replace(/\p{L}+/gu, 'a').replace(/\p{N}+/gu, '9');

/**
 * Whether a row reads as a record of the table below it rather than as its names: a cell with an `@` over a column of
 * e-mail addresses, or a cell with a digit shaped as most values below it are (a code like B-200 over A-100, C-300).
 * Column names are words; a headerless file's second record is not.
 */
function readsAsRecordOver(row: readonly string[], below: readonly string[][]): boolean {
  return row.some((raw, i) => {
    const cell = raw.trim();
    const email = cell.includes('@');
    if (!email && !/\p{N}/u.test(cell)) return false;
    const values = below.map((r) => (r[i] ?? '').trim()).filter((v) => v !== '');
    const alike = values.filter((v) => (email ? v.includes('@') : shapeOf(v) === shapeOf(cell)));
    return values.length > 0 && alike.length * 2 >= values.length;
  });
}

/**
 * How many rows at the top of a table are a title above its header, from a sample of its first rows (blank rows
 * already skipped by the readers): a workbook's "Customer export" in A1 over the table, or the same sheet saved as
 * CSV. Each such row has one value, and not a plain number; the row under them has two or more and reads as a header
 * (`detectHeader`, over the rows below it, and no cell of it shaped as the values below: readsAsRecordOver), and most
 * rows below it have two values or more. Without such rows, or
 * when any condition fails, 0: the first row is the header's candidate as before. The review shows the rows left out
 * and reads them again on the reviewer's word, so a first record of one value is never lost unseen.
 */
export function rowsAboveHeader(sample: readonly string[][]): number {
  for (let above = 1; above <= MAX_ROWS_ABOVE_HEADER && above < sample.length - 1; above++) {
    const title = sample[above - 1];
    if (valuesIn(title) !== 1 || title.some((cell) => PLAIN_NUMBER.test(cell.trim()))) return 0;
    // Another row of one value: a second title line, or the table's first row of a one-column file.
    if (valuesIn(sample[above]) < 2) continue;
    const below = sample.slice(above + 1);
    if (below.filter((row) => valuesIn(row) >= 2).length * 2 <= below.length) return 0;
    if (readsAsRecordOver(sample[above], below)) return 0;
    return detectHeader(sample.slice(above)) ? above : 0;
  }
  return 0;
}

/** Whether these are the names `headerNames` makes up for a table without a header (`column_1, column_2, ...`). */
export function isMadeUpHeaders(names: readonly string[]): boolean {
  return names.length > 0 && names.every((name, i) => name === `column_${i + 1}`);
}

/**
 * Header names for a table `width` columns wide: the first row, or `column_1, column_2, ...` when there is none.
 * The width reaches the farthest value of any row, the first's included: its cells past it are empty.
 */
export function headerNames(firstRow: string[], hasHeader: boolean, width: number): string[] {
  if (!hasHeader) return Array.from({ length: width }, (_, i) => `column_${i + 1}`);
  const given = Array.from({ length: width }, (_, i) => (firstRow[i] ?? '').trim());
  // Blank or repeated names (possible with an explicit input_has_header=true) get a suffix so that every header
  // names exactly one column. A name the file gives keeps it (its first column); a made-up name avoids every name
  // taken, so "name,name,name_2" is name, name_3, name_2 (the second column named name_2 hid the third: its
  // values could be neither mapped nor written).
  const names: (string | null)[] = given.map(() => null);
  const taken = new Set<string>();
  given.forEach((name, i) => {
    if (name === '' || taken.has(name)) return;
    names[i] = name;
    taken.add(name);
  });
  return names.map((name, i) => {
    if (name !== null) return name;
    const base = given[i] || `column_${i + 1}`;
    let made = given[i] === '' && !taken.has(base) ? base : `${base}_2`;
    for (let n = 3; taken.has(made); n++) made = `${base}_${n}`;
    taken.add(made);
    return made;
  });
}
