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

/**
 * Characters of XML parsed before the handlers' output is handed on (parseXmlPart yields). At least 21 characters
 * make a cell (`<c t="s"><v>0</v></c>`), so a slice makes at most some 200 cells, 6.4 million characters of
 * Excel-made text. saxes carries a CR or half a surrogate pair cut at a slice's end over to the next.
 */
const XML_SLICE_CHARS = 4 * 1024;

/**
 * Streams one part of the package through saxes (SAX: nothing but the handlers' own state
 * is kept), yielding after each slice of XML_SLICE_CHARS so the caller can hand on what it produced.
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
      // In slices, each handed on before the next is parsed: a shared-string cell is some 30 characters of XML that
      // stand for up to 32,767 of text (Excel's longest cell), so a whole 128 KiB chunk made 4,000 cells' worth of rows
      // at once. 200 rows of 30 such cells of 30,000 characters failed with "out of memory" in a 64 MB thread.
      for (let at = 0; at < piece.length; at += XML_SLICE_CHARS) {
        parser.write(piece.length <= XML_SLICE_CHARS ? piece : piece.slice(at, at + XML_SLICE_CHARS));
        fed += Math.min(XML_SLICE_CHARS, piece.length - at);
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
