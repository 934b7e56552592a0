import { posix } from 'node:path';

/**
 * A filename's extension, lower case and without its dot: `csv` for "Report.CSV"; empty when
 * the name has none ("csv", ".csv", "report."). One reading for every place that decides by
 * extension (the run's create, the reader, the stored content type, the image check), so a
 * name the create accepted is read as what it said.
 */
export const fileExtension = (filename: string): string =>
  // extname skips a trailing slash ("report.csv/" would be a csv): a name ending in one names a folder.
  /[/\\]$/.test(filename) ? '' : posix.extname(filename).slice(1).toLowerCase();
