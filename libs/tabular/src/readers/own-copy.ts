/**
 * The same characters in a string of their own. Papaparse cuts cells out of the text with `substring`, and V8 makes a
 * cut of 13 characters or more a view that keeps the whole text alive as long as the cut lives: an e-mail address kept
 * from a piece of text of 2 MB (rows of 1 MB) kept the 2 MB. A string joined to another is copied flat when it is cut
 * again, so the cut of the joined string is a view of that copy alone (20 cuts of 35 characters out of 10 MB texts:
 * 203 MB of heap kept as views, 13 MB as copies).
 */
export function ownCopy(text: string): string {
  return text.length < 13 ? text : ` ${text}`.slice(1);
}
