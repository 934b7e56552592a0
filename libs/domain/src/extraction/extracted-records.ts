import type { FieldDefinition } from '@app/contracts';

/** The provider's answer could not be used; the message says why (never the answer itself). */
export class UnusableAnswer extends Error {}

/** At most this many records are taken from one extraction (a raw text is at most 50,000 characters). */
export const MAX_EXTRACTED_RECORDS = 5000;

/**
 * JSON Schema of an extraction answer: `{records: [{<field>: string|null, ...}]}`. Every
 * value is asked for as text; the service types and checks it like a file's cells, so an
 * extracted record goes through exactly the same review and output as a parsed row.
 */
export function extractionJsonSchema(fields: Record<string, FieldDefinition>): Record<string, unknown> {
  const names = Object.keys(fields);
  return {
    type: 'object',
    additionalProperties: false,
    required: ['records'],
    properties: {
      records: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: names,
          properties: Object.fromEntries(names.map((n) => [n, { type: ['string', 'null'], description: fields[n].description }])),
        },
      },
    },
  };
}

const asCell = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new UnusableAnswer('A record value is neither text, a number, a boolean nor null.');
};

/**
 * The rows of an extraction answer, one cell per schema field in schema order. Unknown
 * keys are ignored; a record that is not an object, or an answer without a records
 * array, makes the whole answer unusable (the run fails rather than guessing). A record
 * with no value at all (every field null or blank) is left out here: the stored rows are
 * read back like a file, whose reader skips a row of blanks, so keeping it would count a
 * row that review and output never see. An answer of nothing but such records is empty. Pure.
 */
export function rowsFromExtraction(answer: unknown, fieldNames: string[]): string[][] {
  if (!answer || typeof answer !== 'object' || !Array.isArray((answer as { records?: unknown }).records)) {
    throw new UnusableAnswer('The answer has no "records" array.');
  }
  const records = (answer as { records: unknown[] }).records;
  if (records.length > MAX_EXTRACTED_RECORDS) throw new UnusableAnswer(`The answer has more than ${MAX_EXTRACTED_RECORDS} records.`);
  const rows = records.map((r) => {
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw new UnusableAnswer('A record is not an object.');
    return fieldNames.map((f) => asCell((r as Record<string, unknown>)[f]));
  });
  return rows.filter((row) => row.some((cell) => cell.trim() !== ''));
}
