import { SourceProblem } from './source-problem';
import { MAX_PARTS, notAZip, type XlsxPackage } from './xlsx-package';
import type { SheetState } from './table-reader';
import type { StallWatch } from './xlsx-stall-watch';
import { prefixedAttribute, readXmlPart } from './xlsx-xml';

/** One worksheet as the workbook names it. */
export interface WorksheetEntry {
  name: string;
  state: SheetState;
  part: string;
}

/** Where the parts the reader needs are, and how the workbook counts its dates. */
export interface WorkbookLayout {
  /** Worksheets in the workbook's own order (the order of its tabs). */
  sheets: WorksheetEntry[];
  sharedStrings: string | null;
  styles: string | null;
  /** Serial day 0 is 1904-01-01 instead of 1899-12-31 (old Mac workbooks). */
  date1904: boolean;
}

interface Relationship {
  type: string;
  target: string;
}

const DEFAULT_WORKBOOK = 'xl/workbook.xml';

/** The rels part of a part: `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`. */
const relsOf = (part: string) => {
  const slash = part.lastIndexOf('/');
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
};

/** A relationship target as a part name: relative to the source part's folder, or absolute from the package root. */
function resolveTarget(sourcePart: string, target: string): string {
  let path = target;
  try {
    path = decodeURIComponent(target);
  } catch {
    /* not percent-encoded after all */
  }
  const segments = path.startsWith('/') ? [] : sourcePart.split('/').slice(0, -1);
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}

const sheetState = (state: string | undefined): SheetState => (state === 'hidden' || state === 'veryHidden' ? state : 'visible');

/** `xl/worksheets/data.xml` → `data`: the name of a sheet the workbook left unnamed. */
const partTitle = (part: string) => part.slice(part.lastIndexOf('/') + 1).replace(/\.xml$/i, '');

/**
 * `name`, else `name (2)`, `name (3)`, ...: the first not yet `taken` (names compare ignoring
 * case, as Excel's do), which it then is. Excel keeps names unique and non-empty; a package
 * that does not still has every sheet named once, so a name chooses one sheet.
 */
function uniqueName(taken: Set<string>, name: string): string {
  let unique = name;
  for (let n = 2; taken.has(unique.toLowerCase()); n++) unique = `${name} (${n})`;
  taken.add(unique.toLowerCase());
  return unique;
}

/** Relationship types end the same way in transitional and strict OOXML; their namespaces differ. */
const isType = (rel: Relationship | undefined, kind: string) => rel !== undefined && rel.type.endsWith(`/${kind}`);

async function readRelationships(pkg: XlsxPackage, sourcePart: string, watch: StallWatch, maxNodeChars: number) {
  const rels = new Map<string, Relationship>();
  await readXmlPart(
    pkg,
    relsOf(sourcePart),
    {
      open(name, a) {
        if (name !== 'Relationship' || a.TargetMode === 'External' || !a.Id || !a.Target) return;
        // A package has at most MAX_PARTS parts to point at; more relationships is no workbook.
        if (rels.size >= MAX_PARTS) throw notAZip();
        rels.set(a.Id, { type: a.Type ?? '', target: resolveTarget(sourcePart, a.Target) });
      },
    },
    watch,
    maxNodeChars,
  );
  return rels;
}

/**
 * Reads the package's root relationships, xl/workbook.xml and its relationships: the
 * worksheets in tab order (chartsheets and dialog sheets are not tables), and the shared
 * strings and styles parts. A package whose workbook names no readable sheet falls back
 * to the conventional part names, as exceljs did (it matched xl/worksheets/sheetN.xml).
 */
const notAWorkbook = () =>
  new SourceProblem('unreadableFile', 'The file is a ZIP archive but not an Excel workbook: it holds no workbook and no worksheet.');

export async function readWorkbookLayout(pkg: XlsxPackage, watch: StallWatch, maxNodeChars: number): Promise<WorkbookLayout> {
  const root = await readRelationships(pkg, '', watch, maxNodeChars);
  const office = [...root.values()].find((r) => isType(r, 'officeDocument'));
  const workbookPart = office && (await pkg.part(office.target)) ? office.target : DEFAULT_WORKBOOK;

  const declared: { id: string; name: string; state: SheetState }[] = [];
  let date1904 = false;
  await readXmlPart(
    pkg,
    workbookPart,
    {
      open(name, a) {
        if (name === 'workbookPr') date1904 = a.date1904 === '1' || a.date1904 === 'true';
        else if (name === 'sheet') {
          if (declared.length >= MAX_PARTS) throw notAZip();
          const id = prefixedAttribute(a, 'id');
          if (id) declared.push({ id, name: a.name ?? '', state: sheetState(a.state) });
        }
      },
    },
    watch,
    maxNodeChars,
  );
  const rels = await readRelationships(pkg, workbookPart, watch, maxNodeChars);
  const relsOfType = (kind: string) => [...rels.values()].filter((r) => isType(r, kind)).map((r) => r.target);

  let sheets: WorksheetEntry[] = [];
  const names = new Set<string>();
  for (const { id, name, state } of declared) {
    const rel = rels.get(id);
    if (!isType(rel, 'worksheet') || !(await pkg.part(rel!.target))) continue;
    sheets.push({ name: uniqueName(names, name || partTitle(rel!.target)), state, part: rel!.target });
  }
  if (sheets.length === 0) {
    const numbered = (await pkg.partNames())
      .map((name) => ({ name, n: /^xl\/worksheets\/sheet(\d+)\.xml$/i.exec(name)?.[1] }))
      .filter((p) => p.n !== undefined);
    sheets = numbered
      .sort((a, b) => Number(a.n) - Number(b.n))
      .map((p) => ({ name: `Sheet${p.n}`, state: 'visible' as const, part: p.name }));
    // A ZIP archive with neither a workbook nor a worksheet is no workbook: it was reported as an empty one.
    if (sheets.length === 0 && !(await pkg.part(workbookPart))) throw notAWorkbook();
  }
  const existing = async (candidates: string[], fallback: string) => {
    for (const name of [...candidates, fallback]) if (await pkg.part(name)) return name;
    return null;
  };
  return {
    sheets,
    sharedStrings: await existing(relsOfType('sharedStrings'), 'xl/sharedStrings.xml'),
    styles: await existing(relsOfType('styles'), 'xl/styles.xml'),
    date1904,
  };
}
