/*
 * The hosted review page, in the browser. TypeScript, bundled by esbuild (scripts/build-review-page.js);
 * nothing fetched from elsewhere. Every call goes to /review/:id/... with the link's signature.
 * Text comes from the catalog the server embedded in #review-boot; values from the file
 * are only ever set with textContent, never parsed as HTML.
 */

import { api, errorText, type ApiFailure } from './api';
import { byId, el } from './dom';
import { formatDate, isolate, locale, messages, numbers, t, typeName } from './i18n';
import type {
  Cell,
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
const PROBLEM_ROWS_PER_PAGE = 20;
const REDIRECT_DELAY_MS = 1200;
/** Values longer than this may be cut in a table cell; they get a tooltip with the whole value. */
const LONG_VALUE = 24;

// ---- Page state --------------------------------------------------------------------

const main = byId('main');
const summary = byId('summary');
let view: ReviewView;
let shownPhase: Phase | 'invalid' | null = null;
/** The mapping as the page shows it (saved or about to be). */
let mapping: Mapping = {};
let saving: Promise<unknown> = Promise.resolve();
let previewSeq = 0;
let countTimer: ReturnType<typeof setTimeout> | undefined;
/** Up to three values of each source column (from the preview), shown under the column chosen. */
let columnSamples: Record<string, string[]> = {};
let lastCount: ProblemCount | null = null;
/** The mapping lastCount was counted for, and the progress of the count under way (null when none runs). */
let lastCountFor: string | null = null;
let counting: { done: number } | null = null;
/** What the list of rows with problems shows: a field and a kind (or any) and a page. */
const problemFilter: { field: string | null; kind: string | null; page: number } = { field: null, kind: null, page: 1 };
let problemRowsSeq = 0;
let expiryTimer: ReturnType<typeof setTimeout> | null = null;
const live = el('div', { id: 'live', role: 'status', 'aria-live': 'polite' });

function say(text: string, kind?: string) {
  live.className = kind ? `notice ${kind}` : '';
  live.textContent = text;
}

function renderSummary() {
  const parts = [];
  if (view.filename) parts.push(view.filename);
  if (view.total_rows !== null && view.phase !== 'preparing') parts.push(t('summary_rows', { count: view.total_rows }));
  if (view.encoding && view.phase !== 'preparing') parts.push(t('summary_encoding', { encoding: view.encoding }));
  if (view.phase === 'active' && view.review_expires_at) parts.push(t('summary_open_until', { date: formatDate(view.review_expires_at) }));
  summary.textContent = parts.join(' · ');
}

function render(next: ReviewView) {
  view = next;
  renderSummary();
  if (view.phase !== shownPhase) {
    const first = shownPhase === null;
    shownPhase = view.phase;
    // What was said about the former state ("Changes saved.") is stale in the new one.
    say('');
    main.replaceChildren();
    main.removeAttribute('aria-busy');
    ({
      preparing: renderPreparing,
      active: renderReview,
      approved: renderReview,
      canceled: renderReview,
      expired: renderExpired,
      failed: renderFailed,
    })[view.phase]();
    if (!first) main.querySelector<HTMLElement>('[data-focus]')?.focus();
  } else if (view.phase === 'preparing') {
    updatePreparing();
  } else if (view.phase === 'approved') {
    updateApproved();
  }
  if (view.phase === 'active' && view.review_expires_at && !expiryTimer) {
    // The page turns to its expired state by itself when the deadline passes.
    const ms = Math.max(0, Date.parse(view.review_expires_at) - Date.now()) + 500;
    if (ms < 2 ** 31)
      expiryTimer = setTimeout(() => {
        void load();
      }, ms);
  }
}

async function load() {
  try {
    render(await api<ReviewView>('state'));
  } catch (err) {
    handleFailure(err as ApiFailure);
  }
}

function handleFailure(err: ApiFailure): void {
  if (err.status === 403 && err.code === 'invalid_signature') return renderInvalid();
  // The deadline passed while the page was open: the state call now answers the expired state alone.
  if (err.code === 'review_expired') {
    void load();
    return;
  }
  say(t('error_generic', { message: errorText(err) }), 'error');
}

// ---- Whole-page states -------------------------------------------------------------

function stateSection(kind: string, title: string, ...body: Node[]) {
  return el(
    'section',
    { class: `state state-${kind}`, 'aria-labelledby': 'state-title' },
    el('h2', { id: 'state-title', tabindex: '-1', 'data-focus': true, text: title }),
    ...body,
  );
}

function renderPreparing() {
  main.setAttribute('aria-busy', 'true');
  main.append(stateSection('preparing', '', el('p', { id: 'preparing-body' }), el('p', { id: 'progress', class: 'muted' })));
  updatePreparing();
}

/** Before the upload the page waits for the file; after it, the file is being read. */
function updatePreparing() {
  byId('state-title').textContent = view.waiting_for_upload ? t('preparing_upload_title') : t('preparing_title');
  byId('preparing-body').textContent = view.waiting_for_upload ? t('preparing_upload') : t('preparing_body');
  const progress = byId('progress');
  if (progress) progress.textContent = view.processed_rows > 0 ? t('preparing_progress', { count: view.processed_rows }) : '';
  setTimeout(load, PREPARING_POLL_MS);
}

function renderExpired() {
  main.append(
    stateSection('expired', t('expired_title'), el('p', { text: t('expired_body', { date: formatDate(view.review_expires_at) }) })),
  );
}

function renderFailed() {
  main.append(
    stateSection(
      'failed',
      t('failed_title'),
      el('p', { class: 'notice error', text: t('failed_body', { message: view.error ? view.error.message : '' }) }),
    ),
  );
}

function renderInvalid() {
  shownPhase = 'invalid';
  summary.textContent = '';
  main.replaceChildren(stateSection('invalid', t('invalid_title'), el('p', { text: t('invalid_body') })));
  main.removeAttribute('aria-busy');
}

// ---- The review: mapping editor, preview, actions -----------------------------------

const readOnly = () => view.phase !== 'active';
const fieldsById = () => view.fields;
const safeId = (name: string): string =>
  `f-${Array.from(name)
    .map((c) => (/[A-Za-z0-9_-]/.test(c) ? c : `_${c.codePointAt(0)}`))
    .join('')}`;

function renderReview() {
  mapping = Object.assign({}, view.mapping_rule || {});
  if (view.phase !== 'active') main.append(closedNotice());
  for (const notice of view.notices || []) {
    const key = `notice_${notice.code}`;
    main.append(el('p', { class: 'notice warn', role: 'note', 'data-notice': notice.code, text: messages[key] ? t(key) : notice.message }));
  }
  main.append(live, mappingSection(), previewSection(), problemRowsSection());
  if (view.phase === 'active') main.append(actions(), confirmDialog());
  syncEditor();
  renderFixesBar();
  void refreshPreview();
}

const approvedBody = () => t(view.output_ready ? 'approved_body_ready' : 'approved_body', { date: formatDate(view.review_approved_at) });

/** An approved review says when its output is ready: the page keeps asking until it is. */
function updateApproved() {
  const body = byId('closed-body');
  if (body) body.textContent = approvedBody();
  if (!view.output_ready) setTimeout(load, PREPARING_POLL_MS);
}

function closedNotice() {
  const approved = view.phase === 'approved';
  const title = approved ? t('approved_title') : t('canceled_title');
  const body = approved ? approvedBody() : t('canceled_body', { date: formatDate(view.review_canceled_at) });
  const callback = approved ? view.success_callback : view.cancel_callback;
  if (approved && !view.output_ready) setTimeout(load, PREPARING_POLL_MS);
  const section = el(
    'section',
    // Approved is a success; canceled is not (no output will come), so it is not shown in green.
    { class: approved ? 'notice ok state-closed' : 'notice state-closed', 'aria-labelledby': 'state-title' },
    el('h2', { id: 'state-title', tabindex: '-1', 'data-focus': true, text: title }),
    el('p', { id: 'closed-body', text: body }),
  );
  if (justActed && callback) {
    let target = null;
    try {
      target = new URL(callback);
    } catch {
      target = null;
    }
    if (target && (target.protocol === 'https:' || target.protocol === 'http:')) {
      target.searchParams.set('transformation_id', view.run_id);
      section.append(el('p', { id: 'redirect', text: t('redirecting', { host: target.host }) }));
      setTimeout(() => location.assign(target.toString()), REDIRECT_DELAY_MS);
      return section;
    }
  }
  section.append(el('p', { text: justActed ? t('close_page') : t('read_only') }));
  return section;
}

function mappingSection() {
  const list = el('ul', { class: 'fields' });
  for (const f of fieldsById()) {
    const id = safeId(f.name);
    const select = el('select', { id, 'data-field': f.name, disabled: readOnly(), 'aria-required': f.is_required ? 'true' : undefined });
    select.append(el('option', { value: '', text: t('not_mapped') }));
    for (const h of view.source_headers) select.append(el('option', { value: h, text: isolate(h) }));
    select.addEventListener('change', () => onMappingChange(f.name, select.value));
    list.append(
      el(
        'li',
        { class: 'field', 'data-row': f.name },
        el(
          'div',
          {},
          el('label', { class: 'field-name', for: id, text: f.label }),
          el(
            'div',
            { class: 'field-meta', id: `${id}-meta` },
            el('span', { class: f.is_required ? 'badge required' : 'badge', text: f.is_required ? t('required') : t('optional') }),
            el('span', { class: 'badge', text: typeName(f.data_type) }),
          ),
          f.description ? el('p', { class: 'field-desc', id: `${id}-desc`, text: f.description }) : null,
        ),
        el(
          'div',
          {},
          select,
          el('p', { class: 'field-samples muted', id: `${id}-samples`, hidden: true }),
          el('p', { class: 'field-warning', id: `${id}-warn`, hidden: true, text: t('required_unmapped') }),
          el('p', { class: 'field-warning', id: `${id}-shared`, hidden: true }),
          f.allowed_values ? picklistControls(f, id) : null,
          el('p', { class: 'field-count', id: `${id}-count`, hidden: true }),
        ),
      ),
    );
  }
  return el(
    'section',
    { 'aria-labelledby': 'mapping-title' },
    el('h2', { id: 'mapping-title', text: t('mapping_title') }),
    el('p', { class: 'muted', text: readOnly() ? t('mapping_hint_read_only') : t('mapping_hint') }),
    view.header_choice
      ? el(
          'label',
          { class: 'check header-choice' },
          el('input', {
            type: 'checkbox',
            id: 'first-row-header',
            checked: view.input_has_header === true,
            disabled: readOnly(),
            onchange: (e: Event) => chooseHeaderRow((e.currentTarget as HTMLInputElement).checked),
          }),
          document.createTextNode(t('first_row_header')),
        )
      : null,
    el(
      'div',
      { class: 'column-head', 'aria-hidden': 'true' },
      el('span', { text: t('mapping_field') }),
      el('span', { text: t('mapping_column') }),
    ),
    list,
  );
}

// ---- Picklists: each value of the column mapped to an allowed value ------------------

function picklistControls(f: Field, id: string) {
  const panel = el('div', { class: 'picklist', id: `${id}-picklist`, hidden: true });
  return el(
    'div',
    {},
    el('p', {
      class: 'muted',
      text: t('picklist_allowed', { values: (f.allowed_values ?? []).map((a) => a.label).join(', ') }),
    }),
    view.phase === 'active'
      ? el('button', {
          type: 'button',
          id: `${id}-map-values`,
          'aria-expanded': 'false',
          'aria-controls': `${id}-picklist`,
          text: t('picklist_open'),
          onclick: (e: Event) => togglePicklist(f, id, e.currentTarget as HTMLElement, panel),
        })
      : null,
    panel,
  );
}

async function togglePicklist(f: Field, id: string, button: HTMLElement, panel: HTMLElement) {
  const open = button.getAttribute('aria-expanded') === 'true';
  button.setAttribute('aria-expanded', String(!open));
  panel.hidden = open;
  if (open) return;
  panel.replaceChildren(el('p', { 'aria-live': 'polite', text: t('picklist_loading') }));
  let found;
  try {
    found = await api<PicklistValues>('picklist-values', 'POST', { mapping_rule: mapping, field: f.name });
  } catch (err) {
    panel.replaceChildren();
    return handleFailure(err as ApiFailure);
  }
  const choices: [string, HTMLSelectElement][] = [];
  const body = el('tbody');
  found.values.forEach((v, i) => {
    const select = el(
      'select',
      { id: `${id}-pick-${i}`, 'data-value': v.value },
      el('option', { value: '', text: t('picklist_keep') }),
      ...found.allowed_values.map((a) => el('option', { value: a.value, text: a.label ?? a.value })),
    );
    select.value = v.mapped_to ?? v.suggestion ?? '';
    choices.push([v.value, select]);
    body.append(
      el(
        'tr',
        {},
        el('th', { scope: 'row' }, el('label', { for: select.id }, el('bdi', { text: v.value }))),
        el('td', { text: numbers.format(v.rows) }),
        el('td', {}, select),
      ),
    );
  });
  panel.replaceChildren(
    el('h3', { id: `${id}-picklist-title`, text: t('picklist_title', { field: f.label }) }),
    ...(found.more
      ? [el('p', { class: 'muted', text: t('picklist_more', { shown: found.values.length, distinct: found.distinct }) })]
      : []),
    el(
      'div',
      { class: 'table-wrap', role: 'region', tabindex: '0', 'aria-labelledby': `${id}-picklist-title` },
      el(
        'table',
        { 'aria-labelledby': `${id}-picklist-title` },
        el(
          'thead',
          {},
          el('tr', {}, ...['picklist_value', 'picklist_rows', 'picklist_to'].map((k) => el('th', { scope: 'col', text: t(k) }))),
        ),
        body,
      ),
    ),
    el('button', {
      type: 'button',
      class: 'primary',
      id: `${id}-picklist-save`,
      text: t('picklist_save'),
      onclick: () => fixValues(f.name, { kind: 'picklist', values: picklistValues(f.name, choices) }),
    }),
  );
}

/**
 * The whole value mapping to save: the one in force (it may name values past the 200 listed)
 * with the choices made here; "Keep as it is" takes a value out.
 */
function picklistValues(field: string, choices: [string, HTMLSelectElement][]): Record<string, string> {
  const latest = [...(view.value_fixes || [])].reverse().find((f) => f.field === field && f.fix.kind === 'picklist');
  const values: Record<string, string> = Object.assign({}, latest && latest.fix.kind === 'picklist' ? latest.fix.values : {});
  for (const [value, select] of choices) {
    if (select.value) values[value] = select.value;
    else delete values[value];
  }
  return values;
}

/** The first row is (or is not) the header: the columns and the suggested mapping are read again. */
async function chooseHeaderRow(hasHeader: boolean) {
  await saving;
  let next;
  try {
    next = await api<ReviewView>('header', 'POST', { input_has_header: hasHeader });
  } catch (err) {
    return onActionRefused(err as ApiFailure, 'save_failed');
  }
  // Another set of columns: the whole editor is drawn again from the new view.
  shownPhase = null;
  lastCount = null;
  render(next);
  say(t('header_chosen'), 'ok');
  byId('first-row-header')?.focus();
}

/** The labels of the fields fed by each column. */
function fieldsByColumn() {
  const users = new Map<string, Field[]>();
  for (const f of fieldsById()) {
    const column = mapping[f.name];
    if (column) users.set(column, [...(users.get(column) || []), f]);
  }
  return users;
}

/** Puts `mapping` into the selects and flags; leaves focus where it is. */
function syncEditor() {
  const users = fieldsByColumn();
  for (const f of fieldsById()) {
    const id = safeId(f.name);
    const select = byId<HTMLSelectElement>(id);
    if (!select) continue;
    const value = mapping[f.name] || '';
    if (select.value !== value) select.value = value;
    // Each column says which other fields it already feeds.
    for (const option of select.options) {
      if (!option.value) continue;
      const others = (users.get(option.value) || []).filter((u: Field) => u.name !== f.name).map((u: Field) => u.label);
      const text = others.length
        ? `${isolate(option.value)} · ${t('column_used_by', { fields: others.join(', ') })}`
        : isolate(option.value);
      if (option.textContent !== text) option.textContent = text;
    }
    const samples = byId(`${id}-samples`);
    const values = value ? columnSamples[value] || [] : [];
    samples.hidden = values.length === 0;
    samples.textContent = values.length ? t('column_samples', { values: values.map(isolate).join(', ') }) : '';
    const shared = byId(`${id}-shared`);
    const sharing = value ? (users.get(value) || []).filter((u: Field) => u.name !== f.name).map((u: Field) => u.label) : [];
    shared.hidden = sharing.length === 0;
    shared.textContent = sharing.length ? t('column_shared', { fields: sharing.join(', ') }) : '';
    const unmapped = f.is_required && value === '';
    byId(`${id}-warn`).hidden = !unmapped;
    select.closest('.field')?.classList.toggle('unmapped-required', unmapped);
    const count = byId(`${id}-count`);
    const n = lastCount && lastCount.problems_by_field ? lastCount.problems_by_field[f.name] || 0 : 0;
    count.hidden = !(n > 0 && value !== '');
    count.textContent = n > 0 ? t('field_problems', { count: n }) : '';
    // Only what is visible describes the select (hidden nodes would still be read out).
    const describedBy = [
      `${id}-meta`,
      f.description ? `${id}-desc` : null,
      samples.hidden ? null : `${id}-samples`,
      unmapped ? `${id}-warn` : null,
      shared.hidden ? null : `${id}-shared`,
      count.hidden ? null : `${id}-count`,
    ];
    select.setAttribute('aria-describedby', describedBy.filter(Boolean).join(' '));
    select.setAttribute('aria-invalid', unmapped ? 'true' : 'false');
  }
}

function onMappingChange(field: string, value: string) {
  mapping[field] = value === '' ? null : value;
  lastCount = null;
  syncEditor();
  void refreshPreview();
  void save();
}

/** Saves one after the other, each on the version the previous save returned. */
function save() {
  saving = saving.then(async () => {
    say(t('saving'));
    try {
      const next = await api<ReviewView>('mapping', 'PUT', { mapping_rule: mapping, expected_mapping_version: view.mapping_version });
      view = next;
      say(t('saved'), 'ok');
    } catch (err) {
      await onActionRefused(err as ApiFailure, 'save_failed');
    }
  });
  return saving;
}

/** A refused save or action: show why, and show the service's current truth. */
async function onActionRefused(err: ApiFailure, messageKey: string) {
  if (err.status === 403 && err.code === 'invalid_signature') return renderInvalid();
  let current = null;
  try {
    current = await api<ReviewView>('state');
  } catch {
    /* keep what we have */
  }
  if ((err.code === 'mapping_conflict' || err.code === 'fixes_conflict') && current) {
    render(current);
    mapping = Object.assign({}, current.mapping_rule || {});
    lastCount = null;
    syncEditor();
    void refreshPreview();
    say(t('conflict'), 'warn');
    return;
  }
  const before = shownPhase;
  if (current) render(current);
  // Where the page turned into another state (expired, failed…), that state says it all.
  if (shownPhase === before) say(t(messageKey, { message: errorText(err) }), 'error');
}

function previewSection() {
  return el(
    'section',
    { 'aria-labelledby': 'preview-title' },
    el('h2', { id: 'preview-title', text: t('preview_title') }),
    fixesBar(),
    el('p', { class: 'problems', id: 'problems', 'aria-live': 'polite', tabindex: '-1' }),
    // The caption sits outside the sideways-scrolling box (a <caption> scrolls away with its table), and names the table.
    el('p', { id: 'preview-caption', class: 'table-caption' }),
    el(
      'div',
      { class: 'table-wrap', role: 'region', tabindex: '0', 'aria-label': t('preview_region') },
      el('table', { id: 'preview', 'aria-labelledby': 'preview-caption' }),
    ),
  );
}

async function refreshPreview() {
  const seq = ++previewSeq;
  const asked = Object.assign({}, mapping);
  const problems = byId('problems');
  problems.textContent = t('problems_checking');
  problems.className = 'problems';
  clearTimeout(countTimer);
  try {
    const preview = await api<Preview>('preview', 'POST', { mapping_rule: asked });
    if (seq !== previewSeq) return;
    columnSamples = preview.column_samples || {};
    renderPreview(preview.rows);
    syncEditor();
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
        problems.textContent = t('problems_progress', { done: count.rows_checked, total: view.total_rows ?? 0 });
        countTimer = setTimeout(poll, COUNT_POLL_MS);
        return;
      }
      counting = null;
      lastCount = count;
      lastCountFor = key;
      problems.textContent =
        count.rows_with_problems === 0
          ? t('problems_none', { count: count.rows_checked, total: count.rows_checked })
          : t('problems_some', { count: count.rows_with_problems, total: count.rows_checked });
      problems.className = count.rows_with_problems === 0 ? 'problems notice ok' : 'problems notice warn';
      syncEditor();
      problemFilter.page = 1;
      renderProblemFilters();
      void refreshProblemRows();
    } catch (err) {
      if (seq === previewSeq) handleFailure(err as ApiFailure);
    }
  };
  countTimer = setTimeout(poll, COUNT_DELAY_MS);
}

// ---- Rows with problems over the whole file, filtered and paged ---------------------

function problemRowsSection() {
  const fieldSelect: HTMLSelectElement = el('select', { id: 'problem-field', onchange: () => onProblemFilter('field', fieldSelect.value) });
  const kindSelect: HTMLSelectElement = el(
    'select',
    { id: 'problem-kind', onchange: () => onProblemFilter('kind', kindSelect.value) },
    el('option', { value: '', text: t('problem_rows_any_kind') }),
    el('option', { value: 'required', text: t('problem_kind_required') }),
    el('option', { value: 'type', text: t('problem_kind_type') }),
  );
  return el(
    'section',
    { id: 'problem-rows-section', 'aria-labelledby': 'problem-rows-title', hidden: true },
    el('h2', { id: 'problem-rows-title', text: t('problem_rows_title') }),
    el(
      'div',
      { class: 'filters' },
      el('label', { for: 'problem-field', text: t('problem_rows_field') }),
      fieldSelect,
      el('label', { for: 'problem-kind', text: t('problem_rows_kind') }),
      kindSelect,
    ),
    view.phase === 'active' ? el('div', { id: 'bulk-fixes', class: 'bulk-fixes' }) : null,
    el('p', { id: 'problem-rows-status', 'aria-live': 'polite' }),
    el(
      'div',
      { class: 'table-wrap', role: 'region', tabindex: '0', 'aria-label': t('problem_rows_region') },
      el('table', { id: 'problem-rows' }),
    ),
    el(
      'div',
      { class: 'pager' },
      el('button', { type: 'button', id: 'problem-prev', text: t('problem_rows_prev'), onclick: () => onProblemPage(-1) }),
      el('button', { type: 'button', id: 'problem-next', text: t('problem_rows_next'), onclick: () => onProblemPage(1) }),
    ),
  );
}

/** The field filter lists the fields that have problems, with their counts. */
function renderProblemFilters() {
  const section = byId('problem-rows-section');
  if (!section) return;
  section.hidden = !lastCount || lastCount.rows_with_problems === 0;
  const select = byId('problem-field');
  const byField = lastCount ? lastCount.problems_by_field : {};
  // The chosen field stays listed when a fix leaves it with none, so its fixes (and their undo) stay in reach.
  const withProblems = fieldsById().filter((f) => (byField[f.name] || 0) > 0 || f.name === problemFilter.field);
  (select as HTMLSelectElement).replaceChildren(
    el('option', { value: '', text: t('problem_rows_any_field') }),
    ...withProblems.map((f) => el('option', { value: f.name, text: `${f.label} (${numbers.format(byField[f.name] || 0)})` })),
  );
  (select as HTMLSelectElement).value = problemFilter.field || '';
  // Rebuilt only for another field: a recount must not take away the control that has focus.
  if (renderedBulkField !== problemFilter.field) renderBulkFixes();
}

function onProblemFilter(which: 'field' | 'kind', value: string) {
  problemFilter[which] = value || null;
  problemFilter.page = 1;
  if (which === 'field') renderBulkFixes();
  void refreshProblemRows();
}

function onProblemPage(step: number) {
  problemFilter.page = Math.max(1, problemFilter.page + step);
  void refreshProblemRows();
}

async function refreshProblemRows() {
  if (!lastCount || lastCount.rows_with_problems === 0) return;
  const seq = ++problemRowsSeq;
  const status = byId('problem-rows-status');
  status.textContent = t('problem_rows_loading');
  try {
    const page = await api<ProblemRowsPage>('problem-rows', 'POST', {
      mapping_rule: mapping,
      field: problemFilter.field,
      kind: problemFilter.kind,
      page: problemFilter.page,
      per_page: PROBLEM_ROWS_PER_PAGE,
    });
    if (seq !== problemRowsSeq) return;
    const pages = Math.max(1, Math.ceil(page.matching / PROBLEM_ROWS_PER_PAGE));
    status.textContent =
      page.matching === 0 ? t('problem_rows_none') : t('problem_rows_page', { page: problemFilter.page, pages, matching: page.matching });
    byId<HTMLButtonElement>('problem-prev').disabled = problemFilter.page <= 1;
    byId<HTMLButtonElement>('problem-next').disabled = problemFilter.page >= pages;
    renderRows(
      byId('problem-rows'),
      page.rows.map((r) => ({ number: r.row, cells: r.cells })),
      null,
      t('problem_rows_row'),
    );
  } catch (err) {
    if (seq === problemRowsSeq) handleFailure(err as ApiFailure);
  }
}

function renderPreview(rows: Row[]) {
  renderRows(
    byId('preview'),
    rows.map((cells, i) => ({ number: i + 1, cells })),
    rows.length ? t('preview_caption', { count: rows.length }) : t('preview_empty'),
    t('preview_row'),
  );
}

/** A table of rows (their number first, then every field), each bad cell with its reason written out. */
function renderRows(table: HTMLTableElement, rows: { number: number; cells: Row }[], caption: string | null, numberHeading: string) {
  const fields = fieldsById();
  const head = el(
    'tr',
    {},
    el('th', { scope: 'col', text: numberHeading }),
    ...fields.map((f) => el('th', { scope: 'col', text: f.label, title: f.label })),
  );
  const body = el('tbody');
  for (const row of rows) {
    body.append(
      el(
        'tr',
        {},
        el('th', { scope: 'row', text: numbers.format(row.number) }),
        ...fields.map((f) => cell(row.cells[f.name], f, row.number)),
      ),
    );
  }
  const captionBox = byId(`${table.id}-caption`);
  if (captionBox) captionBox.textContent = caption ?? '';
  table.replaceChildren(el('thead', {}, head), body);
}

function cell(c: Cell | undefined, field: Field, rowNumber: number) {
  const td = el('td');
  const fill = () => {
    td.replaceChildren();
    if (!c || c.value === null || c.value === '') td.append(el('span', { class: 'empty', text: t('empty_value') }));
    else {
      // Isolated: a value keeps its own direction inside a right-to-left page ("+49 30 12342", "Customer No.").
      td.append(el('bdi', { text: c.value }));
      // A long value is cut at the column's width: the whole of it on hover.
      if (c.value.length > LONG_VALUE) td.title = c.value;
    }
    if (c && c.problem) {
      const reason =
        c.problem === 'required'
          ? t('problem_required')
          : field.allowed_values
            ? t('problem_enum')
            : t('problem_type', { type: typeName(field.data_type) });
      td.className = 'bad';
      // Written out, not only a tooltip: phones and keyboards have no hover, and screen readers read it with the value.
      td.append(el('span', { class: 'reason', text: reason }));
      if (view.phase === 'active') {
        td.append(
          el('button', {
            type: 'button',
            class: 'fix-cell',
            'aria-label': t('fix_cell_label', { field: field.label, row: numbers.format(rowNumber) }),
            text: t('fix_cell'),
            onclick: () => editCell(td, c, field, rowNumber, fill),
          }),
        );
      }
    }
  };
  fill();
  return td;
}

// ---- Fixing values: one cell, every value of a field, undo ---------------------------

/** Turns a bad cell into a small form: Enter (or Save) records the edit, Escape (or Discard) puts the cell back. */
function editCell(td: HTMLElement, c: Cell, field: Field, rowNumber: number, restore: () => void) {
  const id = `edit-${safeId(field.name)}-${rowNumber}`;
  const input = el('input', { id, type: 'text', dir: 'auto', value: c.value ?? '' });
  const discard = () => {
    restore();
    td.querySelector<HTMLElement>('.fix-cell')?.focus();
  };
  const form = el(
    'form',
    {
      class: 'cell-edit',
      onsubmit: (e) => {
        e.preventDefault();
        void fixValues(field.name, { kind: 'cell', row: rowNumber, before: c.value ?? '', after: input.value });
      },
      onkeydown: (e) => {
        if ((e as KeyboardEvent).key === 'Escape') {
          e.preventDefault();
          discard();
        }
      },
    },
    el('label', { class: 'sr-only', for: id, text: t('fix_cell_input', { field: field.label, row: numbers.format(rowNumber) }) }),
    input,
    el('button', { type: 'submit', text: t('fix_save') }),
    el('button', { type: 'button', text: t('fix_discard'), onclick: discard }),
  );
  td.replaceChildren(form);
  input.focus();
  input.select();
}

/** The normalisers that suit a field's type (trimming suits every field). */
function normalisersFor(dataType: string): string[] {
  const byType = { boolean: ['boolean'], number: ['amount'], integer: ['amount'], url: ['url'], date: ['date'], datetime: ['date'] };
  return [...((byType as Record<string, string[]>)[dataType] || []), 'trim'];
}

/** Bulk fixes of the field the list of rows is filtered by: its normalisers, and find and replace. */
let renderedBulkField: string | null | undefined;

function renderBulkFixes() {
  const box = byId('bulk-fixes');
  if (!box) return;
  renderedBulkField = problemFilter.field;
  const field = fieldsById().find((f) => f.name === problemFilter.field);
  if (!field) {
    box.replaceChildren(el('p', { class: 'muted', text: t('fix_choose_field') }));
    return;
  }
  const controls = [];
  for (const normaliser of normalisersFor(field.data_type)) {
    if (normaliser === 'amount') {
      const decimal = el(
        'select',
        { id: 'fix-decimal' },
        el('option', { value: ',', text: t('fix_decimal_comma') }),
        el('option', { value: '.', text: t('fix_decimal_dot') }),
      );
      // The decimal mark of the reviewer's language, where the text alone cannot tell.
      decimal.value = (1.5).toLocaleString(locale).includes(',') ? ',' : '.';
      controls.push(
        el(
          'div',
          { class: 'fix-row' },
          el('label', { for: 'fix-decimal', text: t('fix_amount_decimal') }),
          decimal,
          el('button', {
            type: 'button',
            'data-normaliser': 'amount',
            text: t('fix_amount'),
            onclick: () => fixValues(field.name, { kind: 'normalise', normaliser: 'amount', decimal_separator: decimal.value }),
          }),
        ),
      );
    } else if (normaliser === 'date') {
      const pattern = el('input', { id: 'fix-date-pattern', type: 'text', placeholder: 'dd.MM.yyyy' });
      controls.push(
        fixForm(
          () => ({ kind: 'normalise', normaliser: 'date', date_pattern: pattern.value }),
          field,
          el('label', { for: 'fix-date-pattern', text: t('fix_date_pattern') }),
          pattern,
          el('button', { type: 'submit', 'data-normaliser': 'date', text: t('fix_date') }),
        ),
      );
    } else {
      controls.push(
        el('button', {
          type: 'button',
          'data-normaliser': normaliser,
          text: t(`fix_${normaliser}`),
          onclick: () => fixValues(field.name, { kind: 'normalise', normaliser }),
        }),
      );
    }
  }
  const find = el('input', { id: 'fix-find', type: 'text' });
  const replace = el('input', { id: 'fix-replace', type: 'text' });
  const whole = el('input', { id: 'fix-whole', type: 'checkbox' });
  controls.push(
    fixForm(
      () => ({ kind: 'replace', find: find.value, replace: replace.value, whole_value: whole.checked }),
      field,
      el('label', { for: 'fix-find', text: t('fix_find') }),
      find,
      el('label', { for: 'fix-replace', text: t('fix_replace_with') }),
      replace,
      el('label', { class: 'check' }, whole, document.createTextNode(t('fix_whole_value'))),
      el('button', { type: 'submit', id: 'fix-replace-all', text: t('fix_replace') }),
    ),
  );
  box.replaceChildren(
    el('h3', { id: 'bulk-fixes-title', text: t('fix_bulk_title', { field: field.label }) }),
    el('div', { class: 'fix-controls', role: 'group', 'aria-labelledby': 'bulk-fixes-title' }, ...controls),
  );
}

/** A row of bulk-fix controls whose submit (Enter or its button) records the fix it reads from them. */
function fixForm(fixOf: () => ValueFix, field: Field, ...controls: Node[]): HTMLFormElement {
  return el(
    'form',
    {
      class: 'fix-row',
      onsubmit: (e: Event) => {
        e.preventDefault();
        void fixValues(field.name, fixOf());
      },
    },
    ...controls,
  );
}

/** How many fixes are in force, and undo of the latest. */
function fixesBar() {
  return el(
    'div',
    { id: 'fixes', class: 'fixes', hidden: true },
    el('span', { id: 'fixes-count' }),
    view.phase === 'active' ? el('button', { type: 'button', id: 'fix-undo', text: t('fix_undo'), onclick: undoFix }) : null,
  );
}

function renderFixesBar() {
  const bar = byId('fixes');
  if (!bar) return;
  const n = (view.value_fixes || []).length;
  bar.hidden = n === 0;
  byId('fixes-count').textContent = t('fixes_count', { count: n });
}

async function fixValues(field: string, fix: ValueFix) {
  await recordFix('fixes', { field, fix }, 'fix_saved');
}

async function undoFix() {
  await recordFix('fixes/undo', {}, 'fix_undone');
}

/** Records a fix (or its undo), then shows every row again through the fixes in force. */
async function recordFix(path: string, body: unknown, doneKey: string) {
  await saving;
  try {
    view = await api<ReviewView>(path, 'POST', body);
    say(t(doneKey), 'ok');
  } catch (caught) {
    const err = caught as ApiFailure;
    if (err.code === 'invalid_fix' || err.code === 'nothing_to_undo' || err.code === 'too_many_fixes')
      return say(t('fix_failed', { message: errorText(err) }), 'error');
    return onActionRefused(err, 'fix_failed');
  }
  renderFixesBar();
  lastCount = null;
  syncEditor();
  void refreshPreview();
  // The control used may be gone (a saved cell editor, the undo of the last fix): focus the count, which says what follows.
  if (!document.activeElement || document.activeElement === document.body) byId('problems')?.focus();
}

// ---- Approve and cancel --------------------------------------------------------------

let justActed = false;
let dialog: HTMLDialogElement;
let dialogOpenings = 0;

function actions() {
  return el(
    'div',
    { class: 'actions' },
    el('button', { type: 'button', id: 'approve', class: 'primary', text: t('approve'), onclick: onApprove }),
    el('button', { type: 'button', id: 'cancel', class: 'danger', text: t('cancel'), onclick: onCancel }),
  );
}

function confirmDialog() {
  dialog = el(
    'dialog',
    { id: 'confirm', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-body' },
    el('h2', { id: 'confirm-title' }),
    el('div', { id: 'confirm-body' }),
    el(
      'div',
      { class: 'buttons' },
      el('button', { type: 'button', id: 'confirm-back', autofocus: true, text: t('confirm_back'), onclick: () => dialog.close('back') }),
      el('button', { type: 'button', id: 'confirm-yes', class: 'primary', onclick: () => dialog.close('yes') }),
    ),
  );
  return dialog;
}

/** Asks once; resolves true when the reviewer confirms (Escape or "Go back" is no). */
function confirmWith(
  title: string,
  lines: Record<string, string>[],
  yesText: string,
  danger: boolean,
  extra: Node | null = null,
): Promise<boolean> {
  byId('confirm-title').textContent = title;
  byId('confirm-body').replaceChildren(...lines.map((line) => el('p', line)), ...(extra ? [extra] : []));
  const yes = byId('confirm-yes');
  yes.textContent = yesText;
  yes.className = danger ? 'danger primary' : 'primary';
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

async function onApprove() {
  await saving;
  const unmapped = fieldsById()
    .filter((f) => f.is_required && !mapping[f.name])
    .map((f) => f.label);
  const lines: Record<string, string>[] = [{ text: t('confirm_approve_body') }];
  if (unmapped.length) lines.push({ class: 'notice warn', text: t('confirm_approve_unmapped', { fields: unmapped.join(', ') }) });
  // A count is stated only for the mapping being approved, and only once it is done.
  if (lastCountFor !== JSON.stringify(mapping) || counting)
    lines.push({
      class: 'notice warn',
      text: t('confirm_approve_counting', { done: counting ? counting.done : 0, total: view.total_rows ?? 0 }),
    });
  else if (lastCount && lastCount.rows_with_problems > 0)
    lines.push({ class: 'notice warn', text: t('confirm_approve_problems', { count: lastCount.rows_with_problems }) });
  // Unless the count is done and found none, the reviewer says what happens to rows that still have a problem.
  const mayHaveProblems = !(lastCountFor === JSON.stringify(mapping) && !counting && lastCount && lastCount.rows_with_problems === 0);
  const choice = mayHaveProblems ? rowsChoice() : null;
  if (!(await confirmWith(t('confirm_approve_title'), lines, t('confirm_approve_yes'), false, choice))) return;
  const rows = choice?.querySelector<HTMLInputElement>('input:checked')?.value ?? 'deliver';
  await act('approve', {
    mapping_rule: mapping,
    expected_mapping_version: view.mapping_version,
    expected_fixes: view.fixes_key,
    rows_with_problems: rows,
  });
}

/** Deliver the rows that still have a problem (the default) or leave them out. */
function rowsChoice() {
  const option = (value: string, key: string, checked: boolean) =>
    el(
      'label',
      { class: 'check' },
      el('input', { type: 'radio', name: 'rows-with-problems', value, checked }),
      document.createTextNode(t(key)),
    );
  return el(
    'fieldset',
    { id: 'rows-choice' },
    el('legend', { text: t('approve_rows_choice') }),
    option('deliver', 'approve_rows_deliver', true),
    option('exclude', 'approve_rows_exclude', false),
  );
}

async function onCancel() {
  if (!(await confirmWith(t('confirm_cancel_title'), [{ text: t('confirm_cancel_body') }], t('confirm_cancel_yes'), true))) return;
  await act('cancel', {});
}

async function act(path: string, body: unknown) {
  setBusy(true);
  try {
    const next = await api<ReviewView>(path, 'POST', body);
    justActed = true;
    render(next);
  } catch (err) {
    setBusy(false);
    await onActionRefused(err as ApiFailure, 'error_generic');
  }
}

function setBusy(busy: boolean) {
  for (const b of main.querySelectorAll<HTMLButtonElement | HTMLSelectElement>('.actions button, select')) b.disabled = busy || readOnly();
}

void load();
