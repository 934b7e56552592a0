/**
 * Control characters (line breaks and tabs included, and the Unicode line and paragraph
 * separators) and the text-direction overrides and isolates (U+202A-U+202E, U+2066-U+2069):
 * in a name or label shown to other people (a member, an organization, a schema, a provider,
 * a field's or an allowed value's label) they hide or reorder what is shown, as in a name
 * that reads as another one. Marks a language needs (zero-width joiners and non-joiners,
 * LRM/RLM) are not among them. A lone surrogate (half of a character, \p{Cs} in a `u` pattern, where
 * a pair is one character) is refused with them: it shows as nothing or a box, and no UTF-8 file
 * or header can carry it. Pure.
 */
const HIDDEN_CONTROLS = /[\p{Cc}\p{Cs}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

export const hasHiddenControls = (text: string): boolean => HIDDEN_CONTROLS.test(text);

/** What a name or label with such characters is told. */
export const HIDDEN_CONTROLS_PROBLEM = 'must not contain control characters, text direction overrides or lone surrogates';
