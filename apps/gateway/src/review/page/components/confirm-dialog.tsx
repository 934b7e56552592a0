/**
 * The one confirmation the page asks before approving or canceling: a modal <dialog> that
 * opens on "Go back" and hands the focus back to the button that opened it (the browser does
 * both). state.ts opens it and waits for its close; this draws what it asks.
 */
import { t } from '../i18n';
import { chooseRows, confirmDialog, type Confirmation, type RowsChoice } from '../state';

export function ConfirmDialog({ question }: { question: Confirmation | null }) {
  return (
    <dialog id="confirm" ref={confirmDialog} aria-labelledby="confirm-title" aria-describedby="confirm-body">
      <h2 id="confirm-title">{question?.title}</h2>
      <div id="confirm-body">
        {question?.lines.map((line) => (
          <p class={line.warn ? 'notice warn' : undefined}>{line.text}</p>
        ))}
        {question?.asksRows && <RowsWithProblems chosen={question.rows} />}
      </div>
      <div class="buttons">
        <button type="button" id="confirm-back" autofocus onClick={() => confirmDialog.current?.close('back')}>
          {t('confirm_back')}
        </button>
        <button
          type="button"
          id="confirm-yes"
          class={question?.danger ? 'danger primary' : 'primary'}
          onClick={() => confirmDialog.current?.close('yes')}
        >
          {question?.yes}
        </button>
      </div>
    </dialog>
  );
}

/** Deliver the rows that still have a problem (the default) or leave them out. */
function RowsWithProblems({ chosen }: { chosen: RowsChoice }) {
  const option = (value: RowsChoice, key: string) => (
    <label class="check">
      <input type="radio" name="rows-with-problems" value={value} checked={chosen === value} onChange={() => chooseRows(value)} />
      {t(key)}
    </label>
  );
  return (
    <fieldset id="rows-choice">
      <legend>{t('approve_rows_choice')}</legend>
      {option('deliver', 'approve_rows_deliver')}
      {option('exclude', 'approve_rows_exclude')}
    </fieldset>
  );
}
