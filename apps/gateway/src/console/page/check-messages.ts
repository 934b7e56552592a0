/**
 * The API's messages about a field's checks (libs/domain/src/fields/field-validators.ts) in the console's words: the API
 * writes for developers ("min_length must not be greater than max_length", a regular expression parser's own text);
 * the form's people see the names of its inputs. Pure (the words come through `t`): a message this does not know is
 * shown as the API wrote it.
 */

type Translate = (key: string, params?: Record<string, string | number>) => string;

/** The parser's reasons (RE2's "error parsing regexp: <reason>: `<where>`"), by the catalog key that says them. */
const PATTERN_REASONS: Array<[RegExp, string]> = [
  [/^missing closing \)/, 'checks.re.missing_paren'],
  [/^unexpected \)/, 'checks.re.unexpected_paren'],
  [/^missing closing \]/, 'checks.re.missing_bracket'],
  [/^invalid or unsupported Perl syntax/, 'checks.re.unsupported_group'],
  [/^invalid escape sequence/, 'checks.re.escape'],
  [/^invalid character class range/, 'checks.re.range'],
  [/^invalid character class/, 'checks.re.class'],
  [/^invalid nested repetition operator/, 'checks.re.nested_repetition'],
  [/^invalid repeat count/, 'checks.re.repeat_count'],
  [/^missing argument to repetition operator/, 'checks.re.nothing_to_repeat'],
  [/^trailing backslash/, 'checks.re.trailing_backslash'],
  [/^invalid named capture/, 'checks.re.named_group'],
];

const RE2_REFUSAL =
  /^The pattern is not a regular expression RE2 accepts \([^)]*\): (?:error parsing regexp: )?([\s\S]*?)(?:: `([\s\S]*)`)?\.?$/;

/** Why the pattern is no regular expression, shortly: the parser's reason in words, and where it is. */
function patternReason(raw: string, at: string | undefined, t: Translate): string {
  const known = PATTERN_REASONS.find(([re]) => re.test(raw));
  const reason = known ? t(known[1]) : raw;
  return at ? t('checks.re.at', { reason, at }) : reason;
}

/**
 * One of the API's messages about a check of a field (its `pattern`, `min`, `max`, `min_length`, `max_length`), as the
 * console says it; `isDate` says whether the field's bounds are dates (earliest and latest, not smallest and largest).
 */
export function personalCheckMessage(message: string, isDate: boolean, t: Translate): string {
  if (message === 'min must not be greater than max.') return t(isDate ? 'checks.msg.min_after_max' : 'checks.msg.min_over_max');
  if (message === 'min_length must not be greater than max_length.') return t('checks.msg.min_length_over_max_length');
  const length = /^(min_length|max_length) must be an integer from 0 to 1000000\.$/.exec(message);
  if (length) return t(`checks.msg.${length[1]}_range`);
  const bound = /^(min|max) must be (an ISO 8601 date|a finite number)/.exec(message);
  if (bound) return t(`checks.msg.${bound[1]}_${bound[2].startsWith('an ISO') ? 'date' : 'number'}`);
  if (/^(min|max) applies to number, integer, date and datetime fields only/.test(message)) return t('checks.msg.bound_type');
  const pattern = RE2_REFUSAL.exec(message);
  if (pattern) return t('checks.msg.pattern_syntax', { reason: patternReason(pattern[1], pattern[2], t) });
  if (message.startsWith('The pattern must be written in the syntax RE2 and JavaScript share')) return t('checks.msg.pattern_flags');
  return message;
}

/** One of the API's messages about a set of the schema's `unique_with` (a line of "Unique together"), as the console says it. */
export function personalSetMessage(message: string, t: Translate): string {
  if (message === 'Each entry of unique_with must be a list of two or more field names.') return t('schema.set_too_small');
  if (message === 'A field may be named only once in a set of unique_with.') return t('schema.set_repeats');
  return message;
}

/** Which input of "Rewrite dates" a transformations message is about, and what the console says there. */
export interface DateRewriteMessage {
  input: 'df-from' | 'df-to' | null;
  text: string;
}

/**
 * One of the API's messages about a field's transformations (libs/domain/src/fields/transformations.ts), placed at the
 * "Rewrite dates" pattern it is about and said in the form's words; any other is shown as the API wrote it, under
 * the transformations.
 */
export function personalTransformationMessage(message: string, t: Translate): DateRewriteMessage {
  if (message === 'date_format needs a "to" pattern.') return { input: 'df-to', text: t('transformation.to_missing') };
  const wrong = /^date_format "(to|from)" must be a date pattern such as [^;]+; "([\s\S]*)" is not one\.$/.exec(message);
  if (wrong) return { input: wrong[1] === 'to' ? 'df-to' : 'df-from', text: t('transformation.not_a_pattern', { pattern: wrong[2] }) };
  if (message === 'date_format "from" must be a pattern string.') return { input: 'df-from', text: t('transformation.from_not_text') };
  return { input: null, text: message };
}
