/**
 * The longest text a fix may carry (a value, a find or a replacement). Its own module: the review
 * page's bundle checks a cell's new value against it before sending, and takes nothing else with it.
 */
export const MAX_FIX_TEXT = 10_000;
