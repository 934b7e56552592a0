/**
 * The page's state and everything that changes it: the review as the service last answered it,
 * the mapping shown, the preview and the whole-file count of problems, the rows with problems,
 * what the live region says and the confirmation asked. Every change draws the page at once
 * (main.tsx renders synchronously), so right after a change the DOM is current and focus can move.
 */
import { MAX_FIX_TEXT } from '../../../../../libs/domain/src/fields/fix-limits';
import { api, errorText, type ApiFailure } from './api';
import { callbackTarget } from './callback-target';
import { cutText, isolate, listOf, numbers, t, type Params } from './i18n';
import type {
  AppliedFix,
  CustomerChecks,
  Field,
  Mapping,
  Phase,
  PicklistValues,
  Preview,
  ProblemCount,
  ProblemRowsPage,
  ReviewView,
  Row,
  ValueFix,
} from './types';

const PREPARING_POLL_MS = 1500;
const COUNT_DELAY_MS = 300;
const COUNT_POLL_MS = 1000;
/**
 * A closed select changes at each arrow key: the mapping is saved (and the preview asked for) once the
 * reviewer stops, not once per option passed (ten arrow presses were ten saves, ten previews, ten counts).
 */
const MAPPING_SETTLE_MS = 350;
const PROBLEM_ROWS_PER_PAGE = 20;
/** After a failed ask for the review the page is waiting on, it asks again: later each time, at most every half minute. */
const RETRY_MS = [2000, 4000, 8000, 15000, 30000];
const REDIRECT_DELAY_MS = 1200;

export interface NumberedRow {
  number: number;
  cells: Row;
}
export type RowsChoice = 'deliver' | 'exclude';
export interface Confirmation {
  title: string;
  lines: { text: string; warn?: boolean }[];
  yes: string;
  danger: boolean;
  /** Whether the reviewer says what happens to the rows that still have a problem, and what they chose. */
  asksRows: boolean;
  rows: RowsChoice;
}

export interface State {
  /**
   * What the page shows; null until the first answer (the server's "Loading…" stays); `unreachable` when the first
   * ask for the review failed (`live` says why; the page asks again by itself).
   */
  screen: Phase | 'invalid' | 'unreachable' | null;
  /** Bumped whenever the screen is drawn afresh (another state, another header row): its components start over. */
  drawn: number;
  view: ReviewView | null;
  /** The mapping as the page shows it (saved or about to be). */
  mapping: Mapping;
  live: { text: string; kind?: 'ok' | 'warn' | 'error' };
  /**
   * The preview's rows, and the request they answer (a new one closes any open cell editor, as redrawing the table did);
   * `leftOut`: the numbers of those rows the reviewer left out (shown, not delivered).
   */
  preview: { rows: Row[]; seq: number; leftOut: number[] } | null;
  /** Up to three values of each source column (from the preview), shown under the column chosen. */
  columnSamples: Record<string, string[]>;
  /** The line that says how many rows have problems (#problems). */
  problems: { text: string; tone?: 'ok' | 'warn' };
  /** The customer's validation hook on the rows shown: running, ran or failed (and why); null when the schema has none. */
  customerChecks: CustomerChecks | null;
  /** The count for the mapping and fixes shown; null as soon as either changes. */
  count: ProblemCount | null;
  /** The last finished count: the rows-with-problems section shows it until the next one is done. */
  listed: ProblemCount | null;
  /** What the list of rows with problems shows: a field and a kind (or any) and a page. */
  filter: { field: string | null; kind: string | null; page: number };
  problemRows: {
    status: string;
    /** `pending`: another filter was asked and its pages are not known yet (the pager waits). */
    page: { rows: NumberedRow[]; seq: number; first: boolean; last: boolean; pages: number; pending?: boolean } | null;
  };
  /** An approval or cancellation is being sent. */
  busy: boolean;
  /** The reviewer approved or canceled in this page (not a page opened on a closed review). */
  justActed: boolean;
  confirm: Confirmation | null;
  /**
   * The hidden rows being left out one after the other ("Leave all hidden rows out" when they are not all known): how
   * far; `together`: all left out (or, `putBack`, put back) with one fix, under way. Null when neither.
   */
  leavingRows: { done: number; total: number; together?: { putBack: boolean } } | null;
}

let state: State = {
  screen: null,
  drawn: 0,
  view: null,
  mapping: {},
  live: { text: '' },
  preview: null,
  columnSamples: {},
  problems: { text: '' },
  customerChecks: null,
  count: null,
  listed: null,
  filter: { field: null, kind: null, page: 1 },
  problemRows: { status: '', page: null },
  busy: false,
  justActed: false,
  confirm: null,
  leavingRows: null,
};

let draw: (s: State) => void = () => {};
export function onChange(listener: (s: State) => void): void {
  draw = listener;
}
function set(patch: Partial<State>): void {
  state = { ...state, ...patch };
  draw(state);
}
const say = (text: string, kind?: State['live']['kind']) => set({ live: { text, kind } });
const focusById = (id: string) => document.getElementById(id)?.focus();
/** Says `text` in the page's message (a live region), as what the reviewer just did (another 50 hidden rows listed). */
export const announce = (text: string): void => say(text);
const isReview = (phase: Phase) => phase === 'active' || phase === 'approved' || phase === 'canceled';

// Not drawn: the order of requests, and what the approval confirmation needs to know of the count.
let saving: Promise<unknown> = Promise.resolve();
let previewSeq = 0;
let problemRowsSeq = 0;
let countTimer: ReturnType<typeof setTimeout> | undefined;
let expiryTimer: ReturnType<typeof setTimeout> | undefined;
/** The mapping the last finished count was for, and the progress of the count under way (null when none runs). */
let lastCountFor: string | null = null;
let counting: { done: number } | null = null;

// ---- The review as the service answers it ---------------------------------------------

let failedLoads = 0;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
/** The next check of a state the page waits in (the file, the output): one at a time, whoever asked. */
let pollTimer: ReturnType<typeof setTimeout> | undefined;
let loading: Promise<void> | null = null;

/** Asks for the review and shows it; a call while an ask is under way shares it ("Try again" pressed twice). */
export function load(): Promise<void> {
  loading ??= askForReview();
  return loading;
}

async function askForReview(): Promise<void> {
  clearTimeout(retryTimer);
  clearTimeout(pollTimer);
  let next: ReviewView;
  try {
    next = await api<ReviewView>('state');
  } catch (err) {
    loading = null; // before the failure is handled: what it does may ask again (an expired review)
    return loadFailed(err as ApiFailure);
  }
  loading = null;
  // Answered again after failures: what was said about them is over.
  if (failedLoads > 0 && state.screen !== 'unreachable') say('');
  failedLoads = 0;
  show(next);
}

/** A failure worth asking again after: the service not reached, failing or busy; not a refusal. */
const passing = (err: ApiFailure): boolean => !err.status || err.status >= 500 || err.status === 429;

/** Whether the page is waiting on the service: its first answer, the file to arrive and be read, an approved review's output. */
function waitingOnService(): boolean {
  const { screen, view } = state;
  if (screen === null || screen === 'unreachable') return true;
  return view !== null && (view.phase === 'preparing' || (view.phase === 'approved' && !view.output_ready));
}

/**
 * The review could not be asked for. Where the page waits on the service, one failure must not stop it for good: it
 * says so and asks again by itself (and the first ask's failure gets a screen of its own, with "Try again").
 */
function loadFailed(err: ApiFailure): void {
  const first = state.screen === null || state.screen === 'unreachable';
  if (err.status === 403 && err.code === 'invalid_signature') return showInvalid();
  if (!waitingOnService() || (!first && !passing(err))) return handleFailure(err);
  clearTimeout(retryTimer); // one ask pending at most, however many failed at once ("Try again" pressed twice)
  if (passing(err)) retryTimer = setTimeout(() => void load(), RETRY_MS[Math.min(failedLoads, RETRY_MS.length - 1)]);
  failedLoads++;
  if (first) {
    const text = t(passing(err) ? 'unreachable_retrying' : 'unreachable_body', { message: errorText(err) });
    set({ screen: 'unreachable', drawn: state.screen === 'unreachable' ? state.drawn : state.drawn + 1, live: { text, kind: 'error' } });
  } else say(t('poll_failed', { message: errorText(err) }), 'warn');
}

/** Shows a view of the review; another state than the one shown (or `redraw`) is drawn afresh. */
function show(next: ReviewView, redraw = false): void {
  const before = state.screen;
  if (!redraw && next.phase === before) {
    set({ view: next });
  } else {
    // What was said about the former state ("Changes saved.") is stale in the new one.
    set({
      view: next,
      screen: next.phase,
      drawn: state.drawn + 1,
      live: { text: '' },
      preview: null,
      listed: null,
      problemRows: { status: '', page: null },
      ...(isReview(next.phase) ? { mapping: { ...(next.mapping_rule || {}) } } : {}),
    });
    if (isReview(next.phase)) void refreshPreview();
    // A state the page turned into takes the focus; the first one drawn, or the same one redrawn, does not.
    if (before !== null && !redraw) focusById('state-title');
  }
  // Before the upload the page waits for the file, then for its reading; an approved review for its output.
  clearTimeout(pollTimer);
  if (next.phase === 'preparing' || (next.phase === 'approved' && !next.output_ready))
    pollTimer = setTimeout(() => void load(), PREPARING_POLL_MS);
  if (next.phase === 'active' && next.review_expires_at && !expiryTimer) {
    // The page turns to its expired state by itself when the deadline passes.
    const ms = Math.max(0, Date.parse(next.review_expires_at) - Date.now()) + 500;
    if (ms < 2 ** 31) expiryTimer = setTimeout(() => void load(), ms);
  }
}

function showInvalid(): void {
  set({ screen: 'invalid', drawn: state.drawn + 1 });
}

function handleFailure(err: ApiFailure): void {
  if (err.status === 403 && err.code === 'invalid_signature') return showInvalid();
  // The deadline passed while the page was open: the state call now answers the expired state alone.
  if (err.code === 'review_expired') {
    void load();
    return;
  }
  say(t('error_generic', { message: errorText(err) }), 'error');
}

/** A message of the catalog with its parameters. */
interface Wording {
  key: string;
  params?: Params;
}

/** A refused save or action: show why (`messageKey` with `params` and the reason), and show the service's current truth. */
async function onActionRefused(err: ApiFailure, messageKey: string, params: Params = {}, fixesConflict?: Wording): Promise<void> {
  if (err.status === 403 && err.code === 'invalid_signature') return showInvalid();
  let current: ReviewView | null = null;
  try {
    current = await api<ReviewView>('state');
  } catch {
    /* keep what we have */
  }
  if ((err.code === 'mapping_conflict' || err.code === 'fixes_conflict') && current) {
    show(current);
    set({ mapping: { ...(current.mapping_rule || {}) }, count: null });
    void refreshPreview();
    say(err.code === 'fixes_conflict' ? t(fixesConflict?.key ?? 'conflict_fixes', fixesConflict?.params) : t('conflict'), 'warn');
    return;
  }
  const before = state.screen;
  if (current) show(current);
  // Where the page turned into another state (expired, failed…), that state says it all.
  if (state.screen === before) say(t(messageKey, { ...params, message: errorText(err) }), 'error');
}

// ---- The mapping ----------------------------------------------------------------------

let unsavedMapping: ReturnType<typeof setTimeout> | undefined;

export function changeMapping(field: string, column: string): void {
  set({ mapping: { ...state.mapping, [field]: column === '' ? null : column }, count: null });
  clearTimeout(unsavedMapping);
  unsavedMapping = setTimeout(() => void savedMapping(), MAPPING_SETTLE_MS);
}

/** The mapping as shown, saved: at once if a change is still settling; what acts on the review waits for it. */
function savedMapping(): Promise<unknown> {
  if (unsavedMapping === undefined) return saving;
  clearTimeout(unsavedMapping);
  unsavedMapping = undefined;
  void refreshPreview();
  return save();
}

/** Saves one after the other, each on the version the previous save returned. */
function save(): Promise<unknown> {
  saving = saving.then(async () => {
    say(t('saving'));
    try {
      const next = await api<ReviewView>('mapping', 'PUT', {
        mapping_rule: state.mapping,
        expected_mapping_version: state.view?.mapping_version,
      });
      set({ view: next, live: { text: t('saved'), kind: 'ok' } });
    } catch (err) {
      await onActionRefused(err as ApiFailure, 'save_failed');
    }
  });
  return saving;
}

/** The file's first rows, each as its values, for the choice of the row with the column names; null when refused (said). */
export async function topRows(): Promise<string[] | null> {
  try {
    return (await api<{ rows: string[] }>('top-rows')).rows;
  } catch (err) {
    await onActionRefused(err as ApiFailure, 'top_rows_failed');
    return null;
  }
}

/**
 * The file has (or has not) a row of column names, with `rowsAbove` rows left out above it (a title; absent: as the
 * service has it): the columns and the suggested mapping are read again.
 */
export async function chooseHeaderRow(hasHeader: boolean, rowsAbove?: number): Promise<void> {
  await settled();
  let next;
  try {
    next = await api<ReviewView>('header', 'POST', {
      input_has_header: hasHeader,
      ...(rowsAbove === undefined ? {} : { rows_above_header: rowsAbove }),
    });
  } catch (err) {
    return onActionRefused(err as ApiFailure, 'save_failed');
  }
  // Another set of columns: the whole editor is drawn again from the new view.
  set({ count: null });
  show(next, true);
  // Columns the organization approved before for these very names come back as then, not each field's by place.
  say(t(next.notices.some((n) => n.code === 'mapping_remembered') ? 'header_chosen_remembered' : 'header_chosen'), 'ok');
  focusById('first-row-header');
}

/**
 * How the file is read, as the reviewer chooses: another sheet of a workbook, or another encoding of a
 * text file. The service reads the file whole again (headers and rows), keeps the mapping where it can,
 * and the editor is drawn afresh from that view. `shown`: the choice as the page names it.
 */
async function chooseSource(path: 'sheet' | 'encoding', value: string, shown: string): Promise<void> {
  await savedMapping();
  set({ busy: true });
  say(t(`${path}_reading`, { [path]: shown }));
  let next;
  try {
    next = await api<ReviewView>(path, 'POST', { [path]: value });
  } catch (err) {
    set({ busy: false });
    // Bytes the encoding does not have: said for people (the service's message gives the byte's offset, for developers).
    // Anything else that stops the read (a quote left open, a damaged sheet) is named, with the choice it refused.
    // The service not reached, failing or busy says nothing of the choice: said as any save that failed.
    const failure = err as ApiFailure;
    const refused = failure.code === 'encoding_unreadable' ? 'encoding_refused' : passing(failure) ? 'save_failed' : `${path}_failed`;
    await onActionRefused(err as ApiFailure, refused, { [path]: shown });
    // The select shows what is still read, whatever the reviewer picked, and has the keyboard back (it was disabled).
    const select = document.getElementById(`${path}-choice`) as HTMLSelectElement | null;
    const current = path === 'sheet' ? state.view?.sheet : state.view?.encoding;
    if (select && current) select.value = current;
    focusById(`${path}-choice`);
    return;
  }
  set({ busy: false, count: null });
  show(next, true);
  // Read again, the file's rows are counted again: the note on rows out of line (not a live region) may come; said
  // here. The server sends rows_out_of_line only when some row is out of line (null otherwise).
  say([t(`${path}_chosen`, { [path]: shown }), ...(next.rows_out_of_line ? [t('rows_out_of_line_told')] : [])].join(' '), 'ok');
  focusById(`${path}-choice`);
}

/**
 * A closed select changes at each arrow key, and a sheet or an encoding chosen reads the whole file
 * again: the choice is made once the reviewer stops on an option (the select stays usable meanwhile).
 */
const SOURCE_SETTLE_MS = 500;
let unreadChoice: { timer: ReturnType<typeof setTimeout>; run: () => Promise<void> } | null = null;

export function chooseSourceWhenSettled(path: 'sheet' | 'encoding', value: string, shown: string): void {
  if (unreadChoice) clearTimeout(unreadChoice.timer);
  const run = () => {
    unreadChoice = null;
    return chooseSource(path, value, shown);
  };
  unreadChoice = { timer: setTimeout(() => void run(), SOURCE_SETTLE_MS), run };
}

/** Whatever is still settling, done now: the mapping saved, then a sheet or an encoding read. What acts on the review waits for it. */
async function settled(): Promise<unknown> {
  await savedMapping();
  if (unreadChoice) {
    clearTimeout(unreadChoice.timer);
    await unreadChoice.run();
  }
  return saving;
}
// The reviewer leaves: what is still settling is sent (as far as the browser lets a page that is going away).
addEventListener('pagehide', () => void settled());

/** An enum field's values over the whole file, for mapping them to the allowed ones (null when the call failed). */
export async function picklistValues(field: string): Promise<PicklistValues | null> {
  try {
    return await api<PicklistValues>('picklist-values', 'POST', { mapping_rule: state.mapping, field });
  } catch (err) {
    handleFailure(err as ApiFailure);
    return null;
  }
}

// ---- Preview and the whole-file count ---------------------------------------------------

async function refreshPreview(): Promise<void> {
  const seq = ++previewSeq;
  const asked = { ...state.mapping };
  set({ problems: { text: t('problems_checking') } });
  clearTimeout(countTimer);
  try {
    const preview = await api<Preview>('preview', 'POST', { mapping_rule: asked });
    if (seq !== previewSeq) return;
    set({
      columnSamples: preview.column_samples || {},
      preview: { rows: preview.rows, seq, leftOut: preview.left_out_rows ?? [] },
      customerChecks: preview.customer_checks ?? null,
    });
  } catch (err) {
    if (seq === previewSeq) handleFailure(err as ApiFailure);
    return;
  }
  // Counting reads the whole file: wait until the reviewer stops changing things, then
  // ask without waiting and show the progress until the count is done.
  const key = JSON.stringify(asked);
  counting = { done: 0 };
  const poll = async () => {
    try {
      const count = await api<ProblemCount>('problems', 'POST', { mapping_rule: asked, wait: false });
      if (seq !== previewSeq || count.status === 'superseded') return;
      if (count.status === 'counting') {
        counting = { done: count.rows_checked };
        set({ problems: { text: t('problems_progress', { done: count.rows_checked, total: state.view?.total_rows ?? 0 }) } });
        countTimer = setTimeout(() => void poll(), COUNT_POLL_MS);
        return;
      }
      counting = null;
      // Counted again for the same mapping (after a fix), the reviewer stays on the page of rows they were
      // working through; another mapping makes other rows the ones with problems, listed from the first page.
      const sameMapping = lastCountFor === key;
      lastCountFor = key;
      const none = count.rows_with_problems === 0;
      set({
        count,
        listed: count,
        // "The rows are being checked again" is done now, and says what the fix (or its undo) changed: once the
        // customer's checks have run too (their findings are in the count before it).
        ...(count.customer_checks?.status === 'running' ? {} : fixCounted(count.rows_with_problems)),
        filter: sameMapping ? state.filter : { ...state.filter, page: 1 },
        // No rows at all is no success: a header guessed over a file's one record, or a file of names only.
        problems:
          count.rows_checked === 0
            ? { text: t('problems_no_rows', { label: t('first_row_header') }), tone: 'warn' }
            : {
                text: none
                  ? t('problems_none', { count: count.rows_checked, total: count.rows_checked })
                  : t('problems_some', { count: count.rows_with_problems, total: count.rows_checked }),
                tone: none ? 'ok' : 'warn',
              },
      });
      void refreshProblemRows();
      void followCustomerChecks(count.customer_checks, seq, asked, poll);
    } catch (err) {
      if (seq === previewSeq) handleFailure(err as ApiFailure);
    }
  };
  countTimer = setTimeout(() => void poll(), COUNT_DELAY_MS);
}

/**
 * The customer's checks answer after our count: while they run the count is asked again; once
 * they ran, the preview's rows are read again with their findings (in place: an open editor stays).
 */
async function followCustomerChecks(checks: CustomerChecks | undefined, seq: number, asked: Mapping, poll: () => Promise<void>) {
  const before = state.customerChecks;
  set({ customerChecks: checks ?? null });
  if (checks?.status === 'running') {
    countTimer = setTimeout(() => void poll(), COUNT_POLL_MS);
    return;
  }
  if (checks?.status !== 'ran' || before?.status !== 'running') return;
  try {
    const preview = await api<Preview>('preview', 'POST', { mapping_rule: asked });
    if (seq === previewSeq && state.preview)
      set({ preview: { rows: preview.rows, seq: state.preview.seq, leftOut: preview.left_out_rows ?? state.preview.leftOut } });
  } catch {
    /* the rows shown stay; the count says what the checks found */
  }
}

// ---- Rows with problems over the whole file, filtered and paged (by the service, 20 a page) ----

export function filterProblems(which: 'field' | 'kind', value: string): void {
  // The pages of another filter are not known until it is answered: the pager waits for them.
  const page = state.problemRows.page && { ...state.problemRows.page, pending: true, first: true, last: true };
  set({ filter: { ...state.filter, [which]: value || null, page: 1 }, problemRows: { ...state.problemRows, page } });
  void refreshProblemRows();
}

/**
 * Another page of the rows with problems: a step from the page asked last, or the first or last page. Kept within the
 * pages the last answer counted, so presses quicker than the answers do not run past the last page.
 */
export function turnProblemPage(to: number | 'first' | 'last'): void {
  if (state.problemRows.page?.pending) return;
  const pages = state.problemRows.page?.pages ?? 1;
  const wanted = to === 'first' ? 1 : to === 'last' ? pages : state.filter.page + to;
  const page = Math.min(pages, Math.max(1, wanted));
  if (page === state.filter.page) return;
  set({ filter: { ...state.filter, page } });
  void refreshProblemRows();
}

/** `again`: the same page asked again for its customer's checks (the reviewer is not told it loads once more). */
async function refreshProblemRows(again = false): Promise<void> {
  if (!state.count || state.count.rows_with_problems === 0) return;
  const seq = ++problemRowsSeq;
  const { field, kind, page } = state.filter;
  if (!again) set({ problemRows: { ...state.problemRows, status: t('problem_rows_loading') } });
  try {
    const found = await api<ProblemRowsPage>('problem-rows', 'POST', {
      mapping_rule: state.mapping,
      field,
      kind,
      page,
      per_page: PROBLEM_ROWS_PER_PAGE,
    });
    if (seq !== problemRowsSeq) return;
    const shown = state.filter.page;
    const pages = Math.max(1, Math.ceil(found.matching / PROBLEM_ROWS_PER_PAGE));
    // Fewer rows have problems than when the page was chosen (the last ones were fixed): the last page there is.
    if (shown > pages) {
      set({ filter: { ...state.filter, page: pages } });
      // Another page's rows: drawn afresh, not in place of these.
      return refreshProblemRows(false);
    }
    set({
      problemRows: {
        status: found.matching === 0 ? t('problem_rows_none') : t('problem_rows_page', { page: shown, pages, matching: found.matching }),
        page: {
          rows: found.rows.map((r) => ({ number: r.row, cells: r.cells })),
          // Asked again, the same rows are drawn in place (as the preview's are): a cell with focus or an open editor stays.
          seq: again && state.problemRows.page ? state.problemRows.page.seq : seq,
          first: shown <= 1,
          last: shown >= pages,
          pages,
        },
      },
    });
    // Rows past those the customer's checks covered up front are sent when shown: until they answer, ask again.
    if (found.customer_checks?.page?.status === 'running')
      setTimeout(() => {
        if (seq === problemRowsSeq) void refreshProblemRows(true);
      }, COUNT_POLL_MS);
  } catch (err) {
    if (seq === problemRowsSeq) handleFailure(err as ApiFailure);
  }
}

// ---- Fixing values: one cell, every value of a field, undo ---------------------------

/** Rows with problems when the last fix (or undo) was saved; null when no count was shown then. */
let problemsBeforeFix: number | null = null;

/**
 * What the page's message says of a fix (or its undo): once it is saved (`saved`: its key, the rows being checked
 * again), then once they were (`checked`, when no count was shown before), or with the rows with problems before and
 * now (`counted`, given `before` and `now`). Each with `params` (a row left out names the row).
 */
interface FixWords {
  saved: string;
  checked: string;
  counted: string;
  params?: Params;
}
const FIX_SAVED: FixWords = { saved: 'fix_saved', checked: 'fix_saved_checked', counted: 'fix_saved_counted' };
const FIX_UNDONE: FixWords = { saved: 'fix_undone', checked: 'fix_undone', counted: 'fix_undone_counted' };
/** How the last fix saved (or undone) is said; null before any. */
let fixWords: FixWords | null = null;

/**
 * The page's message once a saved fix (or undo) is counted: the rows with problems before and now, so a reviewer
 * sees what it did (a find and replace that matched nothing leaves the count as it was). Nothing when the message
 * has moved on to something else.
 */
function fixCounted(now: number): Partial<State> {
  if (!fixWords || state.live.text !== t(fixWords.saved, fixWords.params)) return {};
  const text =
    problemsBeforeFix === null
      ? t(fixWords.checked, fixWords.params)
      : t(fixWords.counted, { ...fixWords.params, before: numbers.format(problemsBeforeFix), now: numbers.format(now) });
  return { live: { text, kind: 'ok' } };
}

/** Records a fix; true once it is saved (a refusal is said in the page's message). */
export const fixValues = async (field: string, fix: ValueFix): Promise<boolean> =>
  (await recordFix('fixes', { field, fix }, FIX_SAVED)) === null;

/**
 * Records a bulk fix from its form. Resolves to null once saved; refused as unusable (422 invalid_fix), to
 * 'invalid' without a word in the page's message: the form says which of its inputs and why, beside them
 * (the message at the top of the page is far from them). Any other refusal is said as for every fix.
 */
export const fixValuesFromForm = async (field: string, fix: ValueFix): Promise<'invalid' | 'refused' | null> => {
  let invalid = false;
  const refusal = await recordFix('fixes', { field, fix }, FIX_SAVED, {
    key: 'fix_failed',
    onInvalid: () => {
      invalid = true;
    },
  });
  return refusal === null ? null : invalid ? 'invalid' : 'refused';
};
// The fixes the page shows: another reviewer's fix made since is not the one taken back (409 fixes_conflict).
// A row left out or put back is said as such when undone: the row is delivered again, or left out again.
export const undoFix = () => {
  const last = lastFix(state.view)?.fix;
  const rows =
    last && (last.kind === 'leave_out' || last.kind === 'put_back' || last.kind === 'leave_out_hidden' || last.kind === 'put_back_hidden');
  const words: FixWords = rows
    ? {
        saved: `fix_undone_${last.kind}`,
        checked: `fix_undone_${last.kind}`,
        counted: `fix_undone_${last.kind}_counted`,
        params: 'row' in last ? { row: numbers.format(last.row) } : {},
      }
    : FIX_UNDONE;
  return recordFix('fixes/undo', { expected_fixes: state.view?.fixes_key }, words);
};

/** The fix saved last (the one "Undo last fix" takes back); null when none is in force. */
export const lastFix = (view: ReviewView | null): AppliedFix | null => {
  const fixes = view?.value_fixes ?? [];
  return fixes.length ? fixes[fixes.length - 1] : null;
};

/**
 * The rows the reviewer left out one by one, by number, as the output leaves them out: the server folds the fixes made
 * under the rows' numbering now (another header row or sheet numbers other rows, which stay in). While the hidden rows
 * are left out together, a hidden row left out again on its own after being put back is one of them (putting them back
 * together delivers it too): the server does not list it apart, so it is not said twice, listed or past the 1,000 listed.
 */
export const rowsLeftOut = (view: ReviewView | null): number[] => view?.rows_left_out ?? [];

/**
 * Leaves data row `row` (numbered from 1, as the tables show it) out of the records, or (`putBack`) delivers it
 * again: a fix like any other (undone by "Undo last fix"), said with the row's number. Resolves true once saved.
 */
export async function leaveOutRow(row: number, putBack = false): Promise<boolean> {
  const kind = putBack ? 'put_back' : 'leave_out';
  const params = { row: numbers.format(row) };
  const words: FixWords = { saved: `row_${kind}`, checked: `row_${kind}_checked`, counted: `row_${kind}_counted`, params };
  // With the mapping version the rows were numbered under: a header row or sheet chosen in another tab since is refused.
  const body = { fix: { kind, row }, expected_mapping_version: state.view?.mapping_version };
  return (await recordFix('fixes', body, words, { key: `row_${kind}_failed`, params })) === null;
}

/** How often, at most, the page's message says how far "Leave all hidden rows out" has come (each step said would crowd a screen reader). */
const LEAVING_SAID_EVERY_MS = 1000;

/**
 * The rows a workbook's sheet hides that are still delivered (not left out), in order: once all were left out together,
 * those put back one by one since (they may be past the 1,000 listed); else the listed ones not left out one by one.
 */
export const hiddenRowsIn = (view: ReviewView | null): number[] => {
  if (view?.hidden_rows_left_out) return view.hidden_rows_put_back ?? [];
  const out = new Set(rowsLeftOut(view));
  return (view?.hidden_rows ?? []).filter((row) => !out.has(row));
};

/** How many rows the sheet hides in all (`hidden_rows_total`, at least as many as listed). */
const hiddenRowsTotal = (view: ReviewView | null): number => Math.max(view?.hidden_rows_total ?? 0, view?.hidden_rows?.length ?? 0);

/** How many hidden rows are left out together (a `leave_out_hidden` in force): all but those put back since; 0 when none. */
export const hiddenRowsLeftOut = (view: ReviewView | null): number =>
  view?.hidden_rows_left_out ? Math.max(0, hiddenRowsTotal(view) - (view.hidden_rows_put_back?.length ?? 0)) : 0;

/**
 * Whether the hidden rows are left out together now: a `leave_out_hidden` in force that still leaves at least one out.
 * With every one of them put back on its own since, the page says them delivered, as if none were left out (and offers
 * no "Put the hidden rows back", which would put back none).
 */
export const hiddenRowsOutTogether = (view: ReviewView | null): boolean => hiddenRowsLeftOut(view) > 0;

/**
 * Leaves every row the sheet hides out with one fix (`leave_out_hidden`, when `hidden_rows_known`: past the 1,000
 * listed too), or (`putBack`) delivers them all again (`put_back_hidden`). A fix like any other (undone by "Undo last
 * fix"), said with how many rows it took out or put back and the rows with problems before and after. While it is sent
 * the notice's buttons are aria-disabled; a second press does nothing. Resolves true once saved.
 */
export async function fixHiddenRows(putBack = false): Promise<boolean> {
  if (state.leavingRows) return false;
  const view = state.view;
  const kind = putBack ? 'put_back_hidden' : 'leave_out_hidden';
  const count = putBack ? hiddenRowsLeftOut(view) : hiddenRowsTotal(view);
  const words: FixWords = putBack
    ? { saved: 'hidden_rows_back', checked: 'hidden_rows_back_checked', counted: 'hidden_rows_back_counted', params: { count } }
    : {
        saved: 'hidden_rows_left_out',
        checked: 'hidden_rows_left_out_checked',
        counted: 'hidden_rows_left_out_counted',
        params: { count },
      };
  set({ leavingRows: { done: 0, total: count, together: { putBack } } });
  // With the mapping version the rows were numbered under: a header row or sheet chosen in another tab since is refused.
  const body = { fix: { kind }, expected_mapping_version: view?.mapping_version };
  const failed = { key: putBack ? 'hidden_rows_back_failed' : 'hidden_rows_leave_failed' };
  try {
    return (await recordFix('fixes', body, words, failed)) === null;
  } finally {
    set({ leavingRows: null });
  }
}

/**
 * Leaves `rows` out one after the other (one fix each, as the row's own button does), saying how far it has come;
 * it stops at the first refusal and says which row and how many were left out before it. The rows are drawn and
 * counted again once, at the end. Whatever acts on the review meanwhile (a save, another fix, approval) waits for it.
 */
export async function leaveOutRows(rows: number[]): Promise<void> {
  if (state.leavingRows || !rows.length) return;
  const total = rows.length;
  // Under way from the first press (a second press does nothing), once what is still settling is saved.
  set({ leavingRows: { done: 0, total }, live: { text: t('hidden_rows_leaving', { done: 0, total }) } });
  await settled();
  const run = async (): Promise<void> => {
    const before = state.count?.rows_with_problems ?? null;
    let done = 0;
    let said = Date.now();
    for (const row of rows) {
      try {
        // With the mapping version the rows were numbered under: a header row or sheet chosen elsewhere since is refused.
        const body = { fix: { kind: 'leave_out', row }, expected_mapping_version: state.view?.mapping_version };
        const next = await api<ReviewView>('fixes', 'POST', body);
        done++;
        const sayNow = done === total || Date.now() - said >= LEAVING_SAID_EVERY_MS;
        if (sayNow) said = Date.now();
        set({
          view: next,
          leavingRows: { done, total },
          ...(sayNow && done < total ? { live: { text: t('hidden_rows_leaving', { done, total }) } } : {}),
        });
      } catch (caught) {
        const err = caught as ApiFailure;
        set({ leavingRows: null });
        const shown = state.screen;
        const params = { row: numbers.format(row), count: done, total };
        // The service's truth shown again, and where it stopped said (where the page turned into another state,
        // expired…, that state says it all). A conflict draws the rows again; otherwise those left out are drawn now.
        await onActionRefused(err, 'hidden_rows_leave_all_failed', params);
        const conflict = err.code === 'mapping_conflict' || err.code === 'fixes_conflict';
        if (state.screen !== shown) return;
        if (conflict) say(t('hidden_rows_leave_all_failed', { ...params, message: errorText(err) }), 'warn');
        else if (done > 0) {
          set({ count: null });
          await refreshPreview();
        }
        return;
      }
    }
    problemsBeforeFix = before;
    fixWords = {
      saved: 'hidden_rows_left_out',
      checked: 'hidden_rows_left_out_checked',
      counted: 'hidden_rows_left_out_counted',
      params: { count: done },
    };
    set({ leavingRows: null, count: null, live: { text: t('hidden_rows_left_out', { count: done }), kind: 'ok' } });
    await refreshPreview();
  };
  // In the queue of saves: an approval, a fix or a mapping saved meanwhile waits for the last row.
  const running = saving.then(run);
  saving = running;
  await running;
}

/**
 * A cell's new value refused because another reviewer changed the values meanwhile (409 fixes_conflict):
 * the rows are drawn again with theirs, and the table (`table`, its id) opens the cell's editor again
 * with what was typed where the value is still bad (rows-table.tsx). Taken once; a new fix drops it.
 */
export interface KeptEdit {
  table: string;
  /** The last rows of the table asked for when it was refused: those drawn are from before the change. */
  seq: number;
  field: string;
  row: number;
  text: string;
  refusal: string;
}
let keptEdit: KeptEdit | null = null;

/**
 * The edit to open again in `table`, drawn from the rows asked for as `seq`: taken by the first table
 * drawn from rows asked for after the refusal, which opens it or not (its cell may be fine now). Rows
 * drawn again from before (while they are asked for again) leave it.
 */
export function takeKeptEdit(table: string, seq: number): KeptEdit | null {
  const kept = keptEdit;
  if (!kept || kept.table !== table || seq <= kept.seq) return null;
  keptEdit = null;
  return kept;
}

/** The reviewer went on (discarded the editor, opened another): what was typed is not opened again. */
export const dropKeptEdit = (): void => {
  keptEdit = null;
};

/**
 * Records a new value of one cell, edited in the table `table`. Resolves to why the service refused
 * it (null once saved): the cell's editor shows that beside the value, and the page's message names
 * the cell, since the message at the top of the page may be out of sight (a phone) and, heard, does
 * not say which cell. Refused because another reviewer changed the values, the message quotes the
 * value, which the redrawn rows no longer hold (its editor opens again only where the cell is still bad).
 */
export const fixCell = async (table: string, field: Field, row: number, before: string, after: string): Promise<string | null> => {
  const cell = { field: field.label, row: numbers.format(row) };
  // Said before it is sent, with the limit: the service's refusal (422 invalid_fix) only says the text cannot be used.
  if (after.length > MAX_FIX_TEXT) {
    const reason = t('fix_too_long', { max: numbers.format(MAX_FIX_TEXT), length: numbers.format(after.length) });
    say(t('fix_cell_failed', { ...cell, message: reason }), 'error');
    return reason;
  }
  return recordFix('fixes', { field: field.name, fix: { kind: 'cell', row, before, after } }, FIX_SAVED, {
    key: 'fix_cell_failed',
    params: cell,
    conflict: {
      key: 'conflict_fixes_cell',
      params: { ...cell, value: isolate(cutText(after)) },
      keep: (refusal) => {
        keptEdit = { table, seq: table === 'preview' ? previewSeq : problemRowsSeq, field: field.name, row, text: after, refusal };
      },
    },
  });
};

/**
 * The whole value mapping to save: the one in force (it may name values past the 200 listed)
 * with the choices made here; "Keep as it is" ('') takes a value out.
 */
export function savePicklist(field: string, choices: Record<string, string>): Promise<boolean> {
  const latest = [...(state.view?.value_fixes || [])].reverse().find((f) => f.field === field && f.fix.kind === 'picklist');
  const values: Record<string, string> = { ...(latest && latest.fix.kind === 'picklist' ? latest.fix.values : {}) };
  for (const [value, to] of Object.entries(choices)) {
    if (to) values[value] = to;
    else delete values[value];
  }
  return fixValues(field, { kind: 'picklist', values });
}

/**
 * Records a fix (or its undo), then shows every row again through the fixes in force. Resolves to
 * null once it is saved and the rows are drawn again; when it was refused, to why (in the reviewer's
 * language; the page's message says it with `failed`), so a cell editor stays open with its value.
 */
async function recordFix(
  path: string,
  body: unknown,
  words: FixWords,
  failed: {
    key: string;
    params?: Params;
    conflict?: Wording & { keep: (refusal: string) => void };
    /** Given, an unusable fix (422 invalid_fix) is not said here: the caller says it where it was typed. */
    onInvalid?: () => void;
  } = { key: 'fix_failed' },
): Promise<string | null> {
  keptEdit = null;
  await settled();
  try {
    const next = await api<ReviewView>(path, 'POST', body);
    // A fix leaves the mapping as it is: another version than the page's means another reviewer changed the
    // mapping meanwhile. The page takes theirs, or its next save or approval would put the old one back.
    const shownView = state.view;
    const mappingMoved = shownView !== null && next.mapping_version > shownView.mapping_version;
    // An answer older than the view (a save of the mapping answered first) keeps the view's mapping, not its own.
    const older = shownView !== null && next.mapping_version < shownView.mapping_version;
    problemsBeforeFix = state.count?.rows_with_problems ?? null;
    fixWords = words;
    set({
      view: older ? { ...next, mapping_version: shownView.mapping_version, mapping_rule: shownView.mapping_rule } : next,
      live: mappingMoved ? { text: t('saved_mapping_changed'), kind: 'warn' } : { text: t(words.saved, words.params), kind: 'ok' },
      count: null,
      ...(mappingMoved ? { mapping: { ...(next.mapping_rule || {}) } } : {}),
    });
  } catch (caught) {
    const err = caught as ApiFailure;
    const reason = errorText(err);
    if (err.code === 'invalid_fix' && failed.onInvalid) {
      say('');
      failed.onInvalid();
      return reason;
    }
    if (err.code === 'invalid_fix' || err.code === 'nothing_to_undo' || err.code === 'too_many_fixes')
      say(t(failed.key, { ...failed.params, message: reason }), 'error');
    else {
      // Kept before the rows are drawn again, which the refusal's handling starts.
      if (err.code === 'fixes_conflict') failed.conflict?.keep(reason);
      await onActionRefused(err, failed.key, failed.params, failed.conflict);
    }
    return reason;
  }
  // The control used may be gone once the rows are drawn again (a saved cell editor, the undo of the
  // last fix): then the count takes the focus, which says what follows.
  await refreshPreview();
  if (!document.activeElement || document.activeElement === document.body) focusById('problems');
  return null;
}

// ---- Approve and cancel --------------------------------------------------------------

/** The confirmation dialog (components/confirm-dialog.tsx); opened and closed here. */
export const confirmDialog: { current: HTMLDialogElement | null } = { current: null };
let dialogOpenings = 0;

/** Asks once; resolves true when the reviewer confirms (Escape or "Go back" is no). */
function confirmWith(question: Omit<Confirmation, 'rows'>): Promise<boolean> {
  set({ confirm: { ...question, rows: 'deliver' } });
  const dialog = confirmDialog.current;
  if (!dialog) return Promise.resolve(false);
  dialog.returnValue = '';
  dialog.showModal();
  // The close event is delivered later (a queued task): one left over from the previous
  // opening can arrive after this one began. A close while the dialog is open is not ours.
  // A listener of an earlier opening that is still waiting then answers no.
  const mine = ++dialogOpenings;
  return new Promise((resolve) => {
    const onClose = () => {
      if (dialog.open) return;
      dialog.removeEventListener('close', onClose);
      resolve(mine === dialogOpenings && dialog.returnValue === 'yes');
    };
    dialog.addEventListener('close', onClose);
  });
}

export function chooseRows(rows: RowsChoice): void {
  if (state.confirm) set({ confirm: { ...state.confirm, rows } });
}

export async function approve(): Promise<void> {
  await settled();
  const { view, mapping, count } = state;
  if (!view) return;
  const unmapped = view.fields.filter((f) => f.is_required && !mapping[f.name]).map((f) => f.label);
  const lines: Confirmation['lines'] = [{ text: t('confirm_approve_body') }];
  if (unmapped.length) lines.push({ warn: true, text: t('confirm_approve_unmapped', { fields: listOf(unmapped) }) });
  // A count is stated only for the mapping being approved, and only once it is done.
  const counted = lastCountFor === JSON.stringify(mapping) && !counting;
  if (!counted)
    lines.push({ warn: true, text: t('confirm_approve_counting', { done: counting ? counting.done : 0, total: view.total_rows ?? 0 }) });
  else if (count && count.rows_with_problems > 0)
    lines.push({ warn: true, text: t('confirm_approve_problems', { count: count.rows_with_problems }) });
  // The rows left out by hand are not delivered, whatever is chosen for the rows with a problem.
  const leftOut = rowsLeftOut(view);
  if (leftOut.length)
    lines.push({ text: t('confirm_approve_left_out', { count: leftOut.length, rows: listOf(leftOut.map((r) => numbers.format(r))) }) });
  // The hidden rows left out together (not in that list), but for those put back one by one since.
  if (hiddenRowsOutTogether(view)) {
    const out = hiddenRowsLeftOut(view);
    const back = view.hidden_rows_put_back ?? [];
    const total = hiddenRowsTotal(view);
    lines.push({
      text:
        out === total
          ? t('confirm_approve_hidden_left_out', { count: out })
          : t('confirm_approve_hidden_left_out_some', { count: out, total }),
    });
    if (back.length)
      lines.push({ text: t('confirm_approve_hidden_put_back', { count: back.length, rows: listOf(back.map((r) => numbers.format(r))) }) });
  }
  // Unless the count is done and found none, the reviewer says what happens to rows that still have a problem.
  const asksRows = !(counted && count && count.rows_with_problems === 0);
  if (!(await confirmWith({ title: t('confirm_approve_title'), lines, yes: t('confirm_approve_yes'), danger: false, asksRows }))) return;
  await act('approve', {
    mapping_rule: state.mapping,
    expected_mapping_version: state.view?.mapping_version,
    expected_fixes: state.view?.fixes_key,
    rows_with_problems: state.confirm?.rows ?? 'deliver',
  });
}

export async function cancel(): Promise<void> {
  const question = { title: t('confirm_cancel_title'), lines: [{ text: t('confirm_cancel_body') }], yes: t('confirm_cancel_yes') };
  if (!(await confirmWith({ ...question, danger: true, asksRows: false }))) return;
  await act('cancel', {});
}

async function act(path: string, body: unknown): Promise<void> {
  set({ busy: true });
  let next;
  try {
    next = await api<ReviewView>(path, 'POST', body);
  } catch (err) {
    set({ busy: false });
    return onActionRefused(err as ApiFailure, 'error_generic');
  }
  set({ busy: false, justActed: true });
  show(next);
  const target = callbackTarget(next);
  if (target) setTimeout(() => location.assign(target.toString()), REDIRECT_DELAY_MS);
}
