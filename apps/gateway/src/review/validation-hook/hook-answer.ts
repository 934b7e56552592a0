/**
 * The customer's validation hook: what the review sends it and how its answer is read
 * (docs/validation-hook.md). Pure: no I/O.
 */

/** The `type` of every request body (and the `x-service-event` header). */
export const VALIDATE_EVENT = 'review.validate';

/** A value as the run's output delivers it: typed for JSON output, text for CSV, null when empty. */
export type DeliveredValue = string | number | boolean | null;

export interface SentRow {
  /** The data row's number in the file, from 1 (the header row not counted). */
  row: number;
  values: Record<string, DeliveredValue>;
}

/** The body of one request: a batch of mapped rows. */
export interface ValidateRequest {
  type: typeof VALIDATE_EVENT;
  run_id: string;
  schema_id: string;
  rows: SentRow[];
}

/** What the customer says of one cell: why it is wrong, and maybe the value it should hold. */
export interface CustomerFinding {
  message: string;
  /** Text, as a reviewer would type it; null when the hook suggests none. */
  corrected_value: string | null;
}

/** Findings by row number, then by field name. */
export type Findings = Map<number, Map<string, CustomerFinding>>;

/** The longest message kept (longer ones are cut, not refused: the reviewer still sees the gist). */
export const MAX_MESSAGE_CHARS = 500;
/** The longest corrected value (a cell fix carries at most as much; libs/domain value-fixes MAX_FIX_TEXT). */
export const MAX_CORRECTED_CHARS = 10_000;

const RESULT_KEYS = new Set(['row', 'field', 'message', 'corrected_value']);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Reads a hook's answer to one batch strictly: a JSON object whose `results` is a list of
 * `{row, field, message, corrected_value?}`, each naming a row of the batch and a field of the
 * schema. Anything else is refused as a whole, with the first thing wrong (the review then says
 * the customer's checks could not run): a half-understood answer would show the reviewer a
 * partial truth. A result with a key we do not know is refused too, so a misspelt
 * `corrected_value` is reported rather than silently lost. Two results for one cell are joined.
 */
export function readHookAnswer(
  body: string,
  sent: readonly number[],
  fields: readonly string[],
): { ok: true; findings: Findings } | { ok: false; problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, problem: 'the answer is not JSON' };
  }
  if (!isObject(parsed) || !Array.isArray(parsed.results)) return { ok: false, problem: 'the answer has no "results" list' };
  const rows = new Set(sent);
  const known = new Set(fields);
  const results: unknown[] = parsed.results;
  // Each cell may be named once or a few times; more results than that is not an answer to this batch.
  if (results.length > sent.length * fields.length * 4)
    return { ok: false, problem: 'the answer has more results than the batch has cells' };
  const findings: Findings = new Map();
  for (const [i, item] of results.entries()) {
    const at = `results[${i}]`;
    if (!isObject(item)) return { ok: false, problem: `${at} is not an object` };
    const unknown = Object.keys(item).find((k) => !RESULT_KEYS.has(k));
    if (unknown !== undefined) return { ok: false, problem: `${at} has an unknown key "${unknown.slice(0, 50)}"` };
    const { row, field, message } = item;
    if (typeof row !== 'number' || !rows.has(row)) return { ok: false, problem: `${at}.row is not a row of the batch` };
    if (typeof field !== 'string' || !known.has(field)) return { ok: false, problem: `${at}.field is not a field of the schema` };
    if (typeof message !== 'string' || message.trim() === '') return { ok: false, problem: `${at}.message must be non-empty text` };
    const corrected = item.corrected_value;
    let correctedText: string | null = null;
    if (typeof corrected === 'string') correctedText = corrected;
    else if (typeof corrected === 'boolean') correctedText = String(corrected);
    else if (typeof corrected === 'number') {
      if (!Number.isFinite(corrected)) return { ok: false, problem: `${at}.corrected_value must be finite` };
      correctedText = String(corrected);
    } else if (corrected !== undefined && corrected !== null)
      return { ok: false, problem: `${at}.corrected_value must be text, a number, true, false or null` };
    if (correctedText !== null && correctedText.length > MAX_CORRECTED_CHARS)
      return { ok: false, problem: `${at}.corrected_value is longer than ${MAX_CORRECTED_CHARS} characters` };
    const cells = findings.get(row) ?? new Map<string, CustomerFinding>();
    findings.set(row, cells);
    const earlier = cells.get(field);
    const text = message.trim();
    cells.set(field, {
      message: (earlier ? `${earlier.message}; ${text}` : text).slice(0, MAX_MESSAGE_CHARS),
      corrected_value: earlier?.corrected_value ?? correctedText,
    });
  }
  return { ok: true, findings };
}
