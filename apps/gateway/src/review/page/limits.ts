/**
 * The review's limits the page must know before the server says so. A copy, because the page is bundled on its own
 * (no server code in it); review-page-limits.unit.spec.ts fails when a copy and the server's value part.
 */

/** The fixes a review keeps at most (MAX_VALUE_FIXES in libs/domain/src/fields/value-fixes.ts): a row left out is one. */
export const MAX_FIXES = 1000;
