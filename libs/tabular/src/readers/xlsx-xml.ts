import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { SourceProblem } from './source-problem';
import type { XlsxPackage } from './xlsx-package';
import type { StallWatch } from './xlsx-stall-watch';

export interface XmlHandlers {
  /** `name` is the local name: some writers prefix SpreadsheetML elements (`<x:c>`). */
  open?: (name: string, attributes: Record<string, string>) => void;
  close?: (name: string) => void;
  /** Character data (entities decoded once, CDATA included), in pieces. */
  text?: (text: string) => void;
}

/** An attribute whose local name is `local`, whatever prefix binds it (`r:id` is usually, not always, `r:`). */
export function prefixedAttribute(attributes: Record<string, string>, local: string): string | undefined {
  for (const key in attributes) if (key === local || key.endsWith(`:${local}`)) return attributes[key];
  return undefined;
}

/** Excel's longest cell, in characters. */
const EXCEL_LONGEST_CELL = 32_767;
/** The fewest characters of XML a slice has: a cell takes at least 21 (`<c t="s"><v>0</v></c>`), so some 12 cells. */
const SMALLEST_SLICE_CHARS = 256;

/** Characters of XML a slice has when its workbook's longest shared string is Excel's longest cell (xmlSliceChars). */
const SLICE_CHARS_AT_LONGEST_CELL = 1024;

/**
 * Characters of a sheet's XML parsed before the rows they make are handed on (parseXmlPart yields), for a workbook
 * whose longest shared string is `longest` characters. A shared-string cell is some 30 characters of XML that stand for
 * up to the longest string, so a whole 128 KiB chunk of the sheet made 4,000 cells' worth of rows at once: 70 rows of
 * 30 cells of 30,000 characters (a 15 MB workbook within every limit) ran a 64 MB thread out of heap. A slice makes at
 * most some 50 cells of Excel's longest text (1,024 characters of XML at 32,767 characters a string: 1.6 million
 * characters) and fewer cells of longer strings (another writer may store up to MAX_FIELD_CHARS in one: some 12 cells
 * of 262,144 characters, 3 million). Slices four times as long (200 cells) kept that workbook's rows alive long enough
 * to be moved to the old generation: its read peaked 23 MB higher (bench/README.md, "The sixty-first session").
 * Workbooks of short strings (most) are parsed a whole chunk at a time, as before slices (4 KiB slices for them
 * measured no slower in bench/xlsx-read.bench.js, within its noise).
 */
export function xmlSliceChars(longest: number): number {
  if (longest <= 0) return Infinity;
  return Math.max(SMALLEST_SLICE_CHARS, Math.floor((SLICE_CHARS_AT_LONGEST_CELL * EXCEL_LONGEST_CELL) / longest));
}

/**
 * Streams one part of the package through saxes (SAX: nothing but the handlers' own state
 * is kept), yielding after each chunk, or each slice of `sliceChars` (xmlSliceChars), so the caller can hand on what
 * it produced.
 * Every chunk is awaited under the stall watchdog. A DTD is refused here as well as by the
 * package check (checked-at-ingestion sources skip that check; saxes would not expand
 * entities anyway). saxes collects a text node, comment or attribute whole before it
 * reports it, so more than `maxNodeChars` characters without a tag starting or ending
 * fails the read instead of growing that buffer to the size of the part.
 */
export async function* parseXmlPart(
  pkg: XlsxPackage,
  partName: string,
  handlers: XmlHandlers,
  watch: StallWatch,
  maxNodeChars: number,
  sliceChars = Infinity,
): AsyncGenerator<void> {
  const entry = await pkg.part(partName);
  if (!entry) return;
  const parser = new SaxesParser<{ xmlns: false; position: false }>({ xmlns: false, position: false });
  let fed = 0;
  let lastTag = 0;
  // SpreadsheetML elements carry the root element's prefix, if any (`<x:worksheet>…<x:c>`):
  // only that prefix is stripped, so the usual unprefixed part pays nothing per tag.
  let prefix: string | null = null;
  const local = (name: string) => (prefix === '' || !name.startsWith(prefix!) ? name : name.slice(prefix!.length));
  const { open, close, text } = handlers;
  parser.on('opentag', (tag) => {
    lastTag = fed;
    if (prefix === null) prefix = tag.name.slice(0, tag.name.indexOf(':') + 1);
    open?.(local(tag.name), tag.attributes);
  });
  parser.on('closetag', (tag) => {
    lastTag = fed;
    close?.(local(tag.name));
  });
  if (text) {
    parser.on('text', text);
    parser.on('cdata', text);
  }
  parser.on('doctype', () => {
    throw new SourceProblem('xmlDoctype', `The workbook part ${entry.fileName} declares a DTD or entities; such documents are refused.`);
  });

  const stream = await watch.step(pkg.openPart(entry));
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let decoder: StringDecoder | null = null;
  try {
    for (;;) {
      const next = await watch.step(chunks.next());
      if (next.done) break;
      // Excel writes UTF-8; the standard also allows UTF-16, which starts with a byte-order mark.
      decoder ??= new StringDecoder(next.value[0] === 0xff && next.value[1] === 0xfe ? 'utf16le' : 'utf8');
      const piece = decoder.write(next.value);
      // In slices when the strings cells stand for are long, each slice's rows handed on before the next is parsed.
      for (let at = 0; at < piece.length; at += sliceChars) {
        const slice = piece.length <= sliceChars ? piece : piece.slice(at, at + sliceChars);
        parser.write(slice);
        fed += slice.length;
        if (fed - lastTag > maxNodeChars) {
          throw new SourceProblem(
            'fieldTooLarge',
            `The workbook part ${entry.fileName} holds a value of more than ${maxNodeChars} characters; such values are refused.`,
          );
        }
        yield;
      }
    }
    if (decoder) parser.write(decoder.end());
    parser.close(); // well-formedness to the end: a cut part fails here
  } finally {
    // Stopped early or failed: destroy the part's stream (yauzl's inflater and file stream with it).
    // Not awaited: after a stall, the stream's end is exactly what may never come.
    chunks.return?.().catch(() => undefined);
  }
}

/** Reads a whole (small) part for what its handlers collect. */
export async function readXmlPart(pkg: XlsxPackage, partName: string, handlers: XmlHandlers, watch: StallWatch, maxNodeChars: number) {
  for await (const _ of parseXmlPart(pkg, partName, handlers, watch, maxNodeChars)) {
    /* the handlers keep what matters */
  }
}
