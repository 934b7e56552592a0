/**
 * The text encodings a reviewer may choose for an uploaded text file when the detected one reads
 * its letters wrong: UTF-8 and the single-byte code pages of the languages the service meets. Each
 * reads ASCII as ASCII, so the rows start at the same bytes in every one of them, and the file's
 * row index (stored at ingestion) holds whichever is chosen. A file detected as UTF-16 or a code
 * page of several bytes a character is not offered the choice: its rows lie elsewhere in the bytes.
 */
export const CHOOSABLE_ENCODINGS = [
  'utf-8',
  'windows-1252',
  'iso-8859-15',
  'macintosh',
  'windows-1250',
  // Not windows-1250's subset: Polish ą ś ź (B1 B6 BC) and Czech š ť ž (B9 BB BE) sit elsewhere in it.
  'iso-8859-2',
  'windows-1251',
  // Russian as DOS, Unix and mail wrote it: detection tells them from windows-1251 by the words alone.
  'koi8-r',
  'koi8-u',
  'ibm866',
  'windows-1253',
  // Greek with its accented capitals where windows-1253 has signs (Ά: B6, not A2).
  'iso-8859-7',
  'windows-1254',
  'windows-1255',
  'iso-8859-8',
  'windows-1256',
  'windows-1257',
  'windows-1258',
] as const;

export type ChoosableEncoding = (typeof CHOOSABLE_ENCODINGS)[number];

export const isChoosableEncoding = (encoding: unknown): encoding is ChoosableEncoding =>
  typeof encoding === 'string' && (CHOOSABLE_ENCODINGS as readonly string[]).includes(encoding);
