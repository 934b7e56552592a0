import Papa from 'papaparse';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Where the first line end outside quoted fields is, as the row guard reads a file (a quote
 * opens a field only at the field's start; `""` inside one is a quote): its first character's
 * position and its length (2 for a CRLF). Null when `text` cannot tell: no such line end in it,
 * or a CR that is its last character (an LF may follow).
 */
export function firstLineEnd(text: string, delimiter: string): { at: number; length: 1 | 2 } | null {
  const DELIMITER = delimiter.charCodeAt(0);
  let fieldStart = true;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE && fieldStart) {
      // To the quote that closes the field: the next one not doubled.
      let q = text.indexOf('"', i + 1);
      while (q !== -1 && text.charCodeAt(q + 1) === QUOTE) q = text.indexOf('"', q + 2);
      if (q === -1) return null;
      fieldStart = false;
      i = q + 1;
      continue;
    }
    if (c === LF) return { at: i, length: 1 };
    if (c === CR) return i + 1 === text.length ? null : { at: i, length: text.charCodeAt(i + 1) === LF ? 2 : 1 };
    fieldStart = c === DELIMITER;
    i++;
  }
  return null;
}

/**
 * The first line end outside quoted fields (`firstLineEnd`) as a line break: `\n`, `\r\n` or
 * `\r`; null when `text` cannot tell. The guard refuses a file whose line ends outside quotes are
 * not all of this kind, so this is the file's line break.
 */
export function firstLineBreak(text: string, delimiter: string): '\n' | '\r\n' | '\r' | null {
  const end = firstLineEnd(text, delimiter);
  if (!end) return null;
  return end.length === 2 ? '\r\n' : text.charCodeAt(end.at) === LF ? '\n' : '\r';
}

/**
 * The line break to parse a file whose first piece of text is `piece` with (papaparse is told
 * it, never left to guess): the first line end outside quoted fields. Papaparse's own guess
 * pairs any two quotes, also a stray one inside an unquoted field, and could then pick another
 * break than the guard checked, joining rows into one silently. The first piece runs to that
 * line end (`inPieces`), so only a first row longer than FIRST_PIECE_MAX_CHARS, which the default
 * row limit refuses, leaves papaparse to guess.
 */
export function linebreakOf(piece: string, delimiter: string): string {
  return firstLineBreak(piece, delimiter) ?? Papa.parse<string[]>(piece, { delimiter, preview: 1 }).meta.linebreak;
}
