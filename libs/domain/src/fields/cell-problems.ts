/**
 * The kinds of problem a cell can have, in the order the review lists them: a value missing
 * where required, not of the field's type, not matching its pattern, outside its min/max, of a
 * length outside min_length/max_length, not unique where it must be, and refused by the
 * customer's validation hook. Every tally, filter and empty count derives from this list.
 *
 * This module imports nothing: the review page's browser bundle imports it too, so the page's
 * filters offer exactly these kinds.
 */
export const CELL_PROBLEMS = ['required', 'type', 'pattern', 'range', 'length', 'unique', 'customer'] as const;

export type CellProblem = (typeof CELL_PROBLEMS)[number];

/** A count of zero for every kind of problem. */
export const noProblemsByKind = (): Record<CellProblem, number> =>
  Object.fromEntries(CELL_PROBLEMS.map((kind) => [kind, 0])) as Record<CellProblem, number>;
