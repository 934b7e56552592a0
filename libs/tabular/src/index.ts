export * from './readers/table-reader';
export * from './readers/delimited-reader';
export * from './readers/xlsx-reader';
export * from './readers/open-table';
export * from './writers/output-writers';
export * from './readers/source-problem';
export * from './readers/content-sniffing';
export * from './readers/text-decoding';
