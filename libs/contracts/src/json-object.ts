/**
 * Whether a parsed JSON value is an object: not `null`, not a list, not a text, number or boolean. Stored event
 * metadata must be one (docs/decisions.md, "A stored text that is not JSON is handed over as its text"): the
 * stores hand over anything else as its text, and the run event check refuses it.
 */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
