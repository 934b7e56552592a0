import type { RunError } from '@app/contracts';

/**
 * Every failure code a run can end with. The only pair the spec names is
 * transformation_storage_failed/storage; the rest are ours (docs/decisions.md).
 */
export const RUN_ERRORS = {
  storageFailed: {
    code: 'transformation_storage_failed',
    type: 'storage',
    retryable: true,
    message: 'A file could not be read or written.',
  },
  emptyFile: { code: 'source_file_empty', type: 'source_file', retryable: false, message: 'The uploaded file contains no rows.' },
  unreadableFile: {
    code: 'source_file_unreadable',
    type: 'source_file',
    retryable: false,
    message: 'The uploaded file could not be parsed.',
  },
  fileTooLarge: {
    code: 'source_file_too_large',
    type: 'source_file',
    retryable: false,
    message: 'The uploaded file is larger than the allowed maximum.',
  },
  extractionFailed: {
    code: 'extraction_failed',
    type: 'provider',
    retryable: true,
    message: 'The AI provider could not extract records from the content.',
  },
  extractionEmpty: {
    code: 'extraction_empty',
    type: 'provider',
    retryable: false,
    message: 'The AI provider found no records in the content.',
  },
  providerNotFound: {
    code: 'provider_not_found',
    type: 'configuration',
    retryable: false,
    message: "The run's AI provider no longer exists for this organization.",
  },
  contentMismatch: {
    code: 'source_file_content_mismatch',
    type: 'source_file',
    retryable: false,
    message: "The file's content is not what its name says.",
  },
  unsupportedFormat: {
    code: 'source_file_unsupported',
    type: 'source_file',
    retryable: false,
    message: 'This kind of file is not supported.',
  },
  encodingInvalid: {
    code: 'source_file_encoding_invalid',
    type: 'source_file',
    retryable: false,
    message: "The file's text is not valid in its encoding.",
  },
  unterminatedQuote: {
    code: 'source_file_unterminated_quote',
    type: 'source_file',
    retryable: false,
    message: 'A quoted field in the file is never closed.',
  },
  malformedQuote: {
    code: 'source_file_malformed_quote',
    type: 'source_file',
    retryable: false,
    message: "A quoted field's closing quote is followed by other text before the next delimiter.",
  },
  mixedLineEnds: {
    code: 'source_file_mixed_line_endings',
    type: 'source_file',
    retryable: false,
    message: "The file's lines end in more than one way (LF, CRLF, CR).",
  },
  rowTooLarge: { code: 'source_row_too_large', type: 'limit', retryable: false, message: 'A row of the file is larger than allowed.' },
  fieldTooLarge: {
    code: 'source_field_too_large',
    type: 'limit',
    retryable: false,
    message: 'A field of the file is larger than allowed.',
  },
  tooManyColumns: {
    code: 'source_too_many_columns',
    type: 'limit',
    retryable: false,
    message: 'A row of the file has more columns than allowed.',
  },
  tooManyRows: { code: 'source_too_many_rows', type: 'limit', retryable: false, message: 'The file has more rows than allowed.' },
  archiveTooLarge: {
    code: 'source_archive_too_large',
    type: 'limit',
    retryable: false,
    message: 'The workbook unpacks to more data than allowed.',
  },
  xmlDoctype: {
    code: 'source_file_xml_doctype',
    type: 'source_file',
    retryable: false,
    message: 'The workbook declares a DTD or XML entities, which are refused.',
  },
  imageTooLarge: {
    code: 'image_too_large',
    type: 'source_file',
    retryable: false,
    message: 'The image is larger than the AI provider accepts.',
  },
  quotaExceeded: {
    code: 'review_preparation_quota_exceeded',
    type: 'quota',
    retryable: false,
    message: 'The organization has no review-preparation quota left.',
  },
  uploadExpired: {
    code: 'upload_expired',
    type: 'timeout',
    // The same file succeeds in a new run, uploaded in time.
    retryable: true,
    message: 'No file was uploaded before the upload instructions expired.',
  },
  stepFailed: {
    code: 'transformation_processing_failed',
    type: 'processing',
    // The step failed the same way on every attempt; a new run of the same input may meet the same fault.
    retryable: false,
    message: 'A processing step failed on every attempt; the run was stopped and the operators were alerted (dead letter).',
  },
  outOfMemory: {
    code: 'transformation_out_of_memory',
    type: 'limit',
    // The same file meets the same limit: a new attempt would end the same way.
    retryable: false,
    message:
      'The file needed more memory than the service gives the work on one file (its rows or values are very long); nothing of this step was kept.',
  },
  outputTooLarge: {
    code: 'output_too_large',
    type: 'limit',
    // The same mapping and fixes make the same output: a new attempt would meet the same limit.
    retryable: false,
    message: 'The output would be larger than allowed for this file; nothing of it was kept.',
  },
} as const;

export type RunErrorKind = keyof typeof RUN_ERRORS;

export const runError = (
  kind: RunErrorKind,
  stage: string,
  opts: { message?: string; context?: string[] | null; retryable?: boolean } = {},
): RunError => ({
  code: RUN_ERRORS[kind].code,
  message: opts.message ?? RUN_ERRORS[kind].message,
  type: RUN_ERRORS[kind].type,
  stage,
  retryable: opts.retryable ?? RUN_ERRORS[kind].retryable,
  context: opts.context ?? [],
});

/** Processing-stage names used in `error.stage`. */
export const STAGES = {
  upload: 'upload',
  ingestion: 'ingestion',
  reviewPreparation: 'review_preparation',
  finalProcessing: 'final_processing',
} as const;
