import { tooLarge, type XlsxPackage } from './xlsx-package';
import type { StallWatch } from './xlsx-stall-watch';
import { readXmlPart } from './xlsx-xml';

/**
 * Built-in number formats that show a date or time (ECMA-376 18.8.30): 14–22 and 45–47.
 * (27–36 and 50–58 are dates only in East Asian locales; exceljs never treated them as
 * dates, and neither does this reader.)
 */
const BUILT_IN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** Excel allows 64,000 cell formats; far more is no workbook (and would be held in memory). */
const MAX_CELL_FORMATS = 1_000_000;

/**
 * Whether a custom format code shows a date or time: a y, m, d, h, s (or b, Buddhist
 * year) outside what is literal text: quoted strings, [colours/locales/elapsed-time
 * brackets], and characters escaped with \, or taken as padding (_x) or fill (*x).
 * The same rule as exceljs's isDateFmt, which decided before, plus the escapes.
 */
export function isDateFormatCode(code: string): boolean {
  const literalFree = code
    .replace(/"[^"]*"/g, '')
    .replace(/\[[^\]]*]/g, '')
    .replace(/[\\_*]./g, '');
  return /[ymdhsb]/i.test(literalFree.replace(/General/gi, ''));
}

/**
 * Reads xl/styles.xml for one thing: which cell formats (`s` on a cell, an index into
 * cellXfs) show a date, so that their serial numbers read as dates. Flags per index.
 */
export async function readDateStyles(pkg: XlsxPackage, partName: string | null, watch: StallWatch, maxNodeChars: number) {
  if (!partName) return new Uint8Array(0);
  const customDates = new Map<number, boolean>();
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
          if (customDates.size >= MAX_CELL_FORMATS) throw tooLarge(`more than ${MAX_CELL_FORMATS} number formats.`);
          customDates.set(parseInt(a.numFmtId, 10), isDateFormatCode(a.formatCode ?? ''));
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
  return Uint8Array.from(cellFormats, (id) => ((customDates.get(id) ?? BUILT_IN_DATE_FORMATS.has(id)) ? 1 : 0));
}
