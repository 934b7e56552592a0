/** Bulk fixes of the field the rows with problems are filtered by: the normalisers that suit its type, and find and replace. */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { locale, numbers, t } from '../i18n';
import { fixValues, fixValuesFromForm } from '../state';
import { MAX_FIX_TEXT } from '../../../../../../libs/domain/src/fields/fix-limits';
import type { Field, ValueFix } from '../types';
import { normalisersFor } from '../../../../../../libs/domain/src/fields/suited-normalisers';

export function BulkFixes({ field, busy }: { field: Field | undefined; busy: boolean }) {
  if (!field) return <p class="muted">{t('fix_choose_field')}</p>;
  return (
    <>
      <h3 id="bulk-fixes-title">{t('fix_bulk_title', { field: field.label })}</h3>
      <div class="fix-controls" role="group" aria-labelledby="bulk-fixes-title">
        {normalisersFor(field.data_type).map((normaliser) =>
          normaliser === 'amount' ? (
            <AmountFix field={field} busy={busy} />
          ) : normaliser === 'date' ? (
            <DateFix field={field} />
          ) : (
            <button
              type="button"
              data-normaliser={normaliser}
              onClick={() => void fixValues(field.name, { kind: 'normalise', normaliser })}
            >
              {t(`fix_${normaliser}`)}
            </button>
          ),
        )}
        <ReplaceFix field={field} />
      </div>
    </>
  );
}

function AmountFix({ field, busy }: { field: Field; busy: boolean }) {
  // Where the text alone cannot tell: the field's number_format's decimal mark, else the reviewer's language's.
  const [decimal, setDecimal] = useState(() =>
    field.decimal_mark === ',' || field.decimal_mark === '.' ? field.decimal_mark : (1.5).toLocaleString(locale).includes(',') ? ',' : '.',
  );
  return (
    <div class="fix-row">
      <label for="fix-decimal">{t('fix_amount_decimal')}</label>
      <select id="fix-decimal" disabled={busy} value={decimal} onChange={(e) => setDecimal(e.currentTarget.value)}>
        <option value=",">{t('fix_decimal_comma')}</option>
        <option value=".">{t('fix_decimal_dot')}</option>
      </select>
      <button
        type="button"
        data-normaliser="amount"
        onClick={() => void fixValues(field.name, { kind: 'normalise', normaliser: 'amount', decimal_separator: decimal })}
      >
        {t('fix_amount')}
      </button>
    </div>
  );
}

function DateFix({ field }: { field: Field }) {
  const pattern = useRef<HTMLInputElement>(null);
  return (
    <FixForm
      field={field}
      id="fix-date"
      fix={() => ({ kind: 'normalise', normaliser: 'date', date_pattern: pattern.current?.value ?? '' })}
      // Blank: said before anything is sent. Refused: the service reads no such pattern (it is the form's one input).
      check={() => ((pattern.current?.value ?? '').trim() === '' ? { input: pattern, reason: t('fix_date_pattern_empty') } : null)}
      refused={() => ({ input: pattern, reason: t('fix_date_pattern_bad') })}
    >
      <label for="fix-date-pattern">{t('fix_date_pattern')}</label>
      <input id="fix-date-pattern" type="text" placeholder="dd.MM.yyyy" ref={pattern} />
      <button type="submit" data-normaliser="date">
        {t('fix_date')}
      </button>
    </FixForm>
  );
}

function ReplaceFix({ field }: { field: Field }) {
  const find = useRef<HTMLInputElement>(null);
  const replace = useRef<HTMLInputElement>(null);
  const whole = useRef<HTMLInputElement>(null);
  const fix = (): ValueFix => ({
    kind: 'replace',
    find: find.current?.value ?? '',
    replace: replace.current?.value ?? '',
    whole_value: whole.current?.checked ?? false,
  });
  return (
    <FixForm
      field={field}
      id="fix-replace"
      fix={fix}
      check={() => {
        const [found, put] = [find.current?.value ?? '', replace.current?.value ?? ''];
        if (found === '') return { input: find, reason: t('fix_find_empty') };
        if (found.length > MAX_FIX_TEXT) return { input: find, reason: tooLong(found) };
        return put.length > MAX_FIX_TEXT ? { input: replace, reason: tooLong(put) } : null;
      }}
      // Checked above, so the service has nothing left to refuse in them but its own rules: said as it says them.
      refused={() => ({ input: find, reason: t('fix_replace_refused') })}
    >
      <label for="fix-find">{t('fix_find')}</label>
      <input id="fix-find" type="text" ref={find} />
      <label for="fix-replace-with">{t('fix_replace_with')}</label>
      <input id="fix-replace-with" type="text" ref={replace} />
      <label class="check">
        <input id="fix-whole" type="checkbox" ref={whole} />
        {t('fix_whole_value')}
      </label>
      <button type="submit" id="fix-replace-all">
        {t('fix_replace')}
      </button>
    </FixForm>
  );
}

const tooLong = (text: string) => t('fix_too_long', { max: numbers.format(MAX_FIX_TEXT), length: numbers.format(text.length) });

/** An input of a bulk-fix form at fault, and why, in the reviewer's words. */
interface FormProblem {
  input: RefObject<HTMLInputElement | null>;
  reason: string;
}

/**
 * A row of bulk-fix controls whose submit (Enter or its button) records the fix it reads from
 * them. The inputs are not controlled: what was typed stays through redraws and recounts. What is
 * wrong (`check`, before anything is sent, or `refused` by the service) is said under the row and
 * tied to the input at fault (aria-invalid, aria-describedby), which gets the keyboard; it goes when
 * the fix is sent again.
 */
function FixForm({
  field,
  id,
  fix,
  check,
  refused,
  children,
}: {
  field: Field;
  id: string;
  fix: () => ValueFix;
  check: () => FormProblem | null;
  refused: () => FormProblem;
  children: ComponentChildren;
}) {
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const errorId = `${id}-error`;
  useLayoutEffect(() => {
    const input = problem?.input.current;
    if (!input) return;
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', errorId);
    input.focus();
    // The reason sits under the row of inputs: scrolled into view too (above the actions bar: the page's scroll
    // padding), or on a phone it stayed under the bar while its input, focused already, did not move.
    document.getElementById(errorId)?.scrollIntoView({ block: 'nearest' });
    return () => {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
    };
  }, [problem, errorId]);
  const submit = async () => {
    setProblem(null);
    const early = check();
    if (early) return setProblem(early);
    if ((await fixValuesFromForm(field.name, fix())) === 'invalid') setProblem(refused());
  };
  return (
    <form
      class="fix-row"
      id={id}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {children}
      {problem && (
        <p id={errorId} class="form-error">
          {problem.reason}
        </p>
      )}
    </form>
  );
}
