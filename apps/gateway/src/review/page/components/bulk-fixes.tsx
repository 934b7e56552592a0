/** Bulk fixes of the field the rows with problems are filtered by: the normalisers that suit its type, and find and replace. */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { locale, t } from '../i18n';
import { fixValues } from '../state';
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
    <FixForm field={field} fix={() => ({ kind: 'normalise', normaliser: 'date', date_pattern: pattern.current?.value ?? '' })}>
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
    <FixForm field={field} fix={fix}>
      <label for="fix-find">{t('fix_find')}</label>
      <input id="fix-find" type="text" ref={find} />
      <label for="fix-replace">{t('fix_replace_with')}</label>
      <input id="fix-replace" type="text" ref={replace} />
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

/**
 * A row of bulk-fix controls whose submit (Enter or its button) records the fix it reads from
 * them. The inputs are not controlled: what was typed stays through redraws and recounts.
 */
function FixForm({ field, fix, children }: { field: Field; fix: () => ValueFix; children: ComponentChildren }) {
  return (
    <form
      class="fix-row"
      onSubmit={(e) => {
        e.preventDefault();
        void fixValues(field.name, fix());
      }}
    >
      {children}
    </form>
  );
}
