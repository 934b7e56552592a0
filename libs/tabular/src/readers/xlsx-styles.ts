import { digitTemplateOf, type DigitTemplate } from './xlsx-digit-template';
import { tooLarge, type XlsxPackage } from './xlsx-package';
import type { StallWatch } from './xlsx-stall-watch';
import { readXmlPart } from './xlsx-xml';

/** How a cell format shows a number: as a number, a date (with or without a time), a time of day, or elapsed time. */
export const SHOWN_AS_NUMBER = 0;
export const SHOWN_AS_DATE = 1;
export const SHOWN_AS_TIME_OF_DAY = 2;
export const SHOWN_AS_ELAPSED_TIME = 3;
export type ShownAs = typeof SHOWN_AS_NUMBER | typeof SHOWN_AS_DATE | typeof SHOWN_AS_TIME_OF_DAY | typeof SHOWN_AS_ELAPSED_TIME;

/**
 * Built-in number formats that show a date or time (ECMA-376 18.8.30): 14–22 and 45–47.
 * (27–36 and 50–58 are dates only in East Asian locales; exceljs never treated them as
 * dates, and neither does this reader.) 18–21, 45 and 47 show a time alone, 46 (`[h]:mm:ss`)
 * elapsed time.
 */
const BUILT_IN_FORMATS = new Map<number, ShownAs>([
  ...[14, 15, 16, 17, 22].map((id) => [id, SHOWN_AS_DATE] as const),
  ...[18, 19, 20, 21, 45, 47].map((id) => [id, SHOWN_AS_TIME_OF_DAY] as const),
  [46, SHOWN_AS_ELAPSED_TIME],
]);

/** A format code without what it shows as literal text: quoted strings, and characters escaped (\x), padding (_x) or fill (*x). */
const withoutLiterals = (code: string): string => code.replace(/"[^"]*"/g, '').replace(/[\\_*]./g, '');

/** Built-in 47 is `mm:ss.0`: tenths of a second. */
const BUILT_IN_SECOND_FRACTIONS = new Map<number, number>([[47, 1]]);

/**
 * How many digits of a second a date or time format shows (`ss.0` tenths, `ss.00`, `ss.000` milliseconds, Excel's
 * most; `[ss].00` too); 0 when it shows whole seconds or is no date or time. Read from the format's first section,
 * the one for positive values and zero (`[h]:mm:ss;[Red]-[h]:mm:ss.00` shows whole seconds for them).
 */
export function secondFractionDigits(code: string): number {
  const unquoted = withoutLiterals(code);
  return /s\]?\.(0{1,3})/i.exec(unquoted.split(';')[0])?.[1].length ?? 0;
}

/** Excel allows 64,000 cell formats; far more is no workbook (and would be held in memory). */
const MAX_CELL_FORMATS = 1_000_000;

/**
 * How a custom format code shows a number. A date or time has a y, m, d, h, s (or b, Buddhist
 * year) outside what is literal text: quoted strings, [colours/locales/elapsed-time brackets],
 * and characters escaped with \, or taken as padding (_x) or fill (*x) (exceljs's isDateFmt,
 * which decided before, plus the escapes). Of those, an `[h]`, `[mm]` or
 * `[ss]` bracket is elapsed time (a duration such as 37:30, which no date stands for); a code
 * with hours, minutes or seconds and no year, day or month name is a time of day (`h:mm AM/PM`:
 * its `m` are minutes). Both used to read as a date and time on 1899-12-30.
 */
export function shownAs(code: string): ShownAs {
  const unquoted = withoutLiterals(code);
  const literalFree = unquoted.replace(/\[[^\]]*]/g, '').replace(/General/gi, '');
  if (/\[(h+|m+|s+)]/i.test(unquoted)) return SHOWN_AS_ELAPSED_TIME;
  if (!/[ymdhsb]/i.test(literalFree)) return SHOWN_AS_NUMBER;
  return /[ydb]/i.test(literalFree.replace(/AM\/PM|A\/P/gi, '')) ? SHOWN_AS_DATE : SHOWN_AS_TIME_OF_DAY;
}

/** How the cell formats (`s` on a cell, an index into cellXfs) show numbers. */
export interface CellStyles {
  /** One per index: so that serial numbers read as dates or times. */
  shownAs: Uint8Array;
  /** The indexes whose format pads whole numbers with zeros (a ZIP code's `00000`: xlsx-digit-template.ts). */
  digitTemplates: ReadonlyMap<number, DigitTemplate>;
  /** The indexes of date and time formats that show parts of a second, and how many digits (secondFractionDigits). */
  secondFractions: ReadonlyMap<number, number>;
}

/** Reads xl/styles.xml for how each cell format shows a number. */
export async function readCellStyles(
  pkg: XlsxPackage,
  partName: string | null,
  watch: StallWatch,
  maxNodeChars: number,
): Promise<CellStyles> {
  if (!partName) return { shownAs: new Uint8Array(0), digitTemplates: new Map(), secondFractions: new Map() };
  const customFormats = new Map<number, ShownAs>();
  const customTemplates = new Map<number, DigitTemplate>();
  const customFractions = new Map<number, number>();
  const cellFormats: number[] = [];
  let inCellXfs = false;
  let inNumFmts = false;
  await readXmlPart(
    pkg,
    partName,
    {
      open(name, a) {
        if (name === 'numFmts') inNumFmts = true;
        else if (name === 'cellXfs') inCellXfs = true;
        else if (name === 'numFmt' && inNumFmts) {
          if (customFormats.size >= MAX_CELL_FORMATS) throw tooLarge(`more than ${MAX_CELL_FORMATS} number formats.`);
          const id = parseInt(a.numFmtId, 10);
          const shown = shownAs(a.formatCode ?? '');
          customFormats.set(id, shown);
          const template = digitTemplateOf(a.formatCode ?? '');
          if (template) customTemplates.set(id, template);
          // Always set (0 too): a custom format that reuses built-in 47's id shows what it says.
          customFractions.set(id, shown === SHOWN_AS_NUMBER ? 0 : secondFractionDigits(a.formatCode ?? ''));
        } else if (name === 'xf' && inCellXfs) {
          if (cellFormats.length >= MAX_CELL_FORMATS) throw tooLarge(`more than ${MAX_CELL_FORMATS} cell formats.`);
          cellFormats.push(parseInt(a.numFmtId ?? '0', 10));
        }
      },
      close(name) {
        if (name === 'numFmts') inNumFmts = false;
        else if (name === 'cellXfs') inCellXfs = false;
      },
    },
    watch,
    maxNodeChars,
  );
  // A custom format may reuse a built-in id; the workbook's own definition wins.
  const digitTemplates = new Map<number, DigitTemplate>();
  const secondFractions = new Map<number, number>();
  cellFormats.forEach((id, index) => {
    const template = customTemplates.get(id);
    if (template) digitTemplates.set(index, template);
    const digits = customFractions.get(id) ?? BUILT_IN_SECOND_FRACTIONS.get(id) ?? 0;
    if (digits > 0) secondFractions.set(index, digits);
  });
  return {
    shownAs: Uint8Array.from(cellFormats, (id) => customFormats.get(id) ?? BUILT_IN_FORMATS.get(id) ?? SHOWN_AS_NUMBER),
    digitTemplates,
    secondFractions,
  };
}
