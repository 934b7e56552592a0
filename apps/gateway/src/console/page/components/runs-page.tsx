import { type Paged } from '../api';
import { formatDate, t } from '../i18n';
import { navigate } from '../router';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useLoad } from '../use-load';
import { errorProps, FieldError } from './field-error';
import { RunBadge } from './run-badge';
import { LoadState } from './load-state';
import { PageTitle } from './page-title';
import { Pager } from './pager';
import { announce } from './status';

interface RunRow {
  id: string;
  status: string;
  stage: string;
  input_source?: string;
  filename?: string | null;
  review_state?: string | null;
  created_at: string;
}

const FILTERS = ['status', 'input_source', 'created_after', 'created_before', 'q'] as const;
const SOURCES = ['upload', 'image', 'raw'];

/**
 * Where a run stands, in its badge's words (run-badge.ts), and the API's filters that find it. The `status` filter
 * alone calls a run whose review is ready, canceled or expired `completed` (its stage, review, is): "Completed"
 * listed runs still waiting for a reviewer, and nothing found those. The address keeps the choice (`?status=in_review`).
 */
const STANDINGS: Record<string, Record<string, string>> = {
  awaiting_upload: { status: 'awaiting_upload' },
  queued: { status: 'queued' },
  processing: { status: 'processing' },
  in_review: { status: 'completed', stage: 'review', review_state: 'active' },
  review_canceled: { status: 'completed', stage: 'review', review_state: 'canceled' },
  review_expired: { status: 'completed', stage: 'review', review_state: 'expired' },
  completed: { status: 'completed', stage: 'final' },
  failed: { status: 'failed' },
};
const STATUSES = Object.keys(STANDINGS);

/**
 * What of the address's filters the form can show: a choice among its options, a day as a date input holds it, any search.
 * Only those are sent, so the list is always the one the form describes (an address edited by hand to `?status=nope`
 * was refused by the API, and the form said "Any").
 */
const CHOICES: Partial<Record<(typeof FILTERS)[number], readonly string[]>> = { status: STATUSES, input_source: SOURCES };
const shownFilter = (name: (typeof FILTERS)[number], value: string | null): string | null => {
  if (!value) return null;
  const options = CHOICES[name];
  if (options) return options.includes(value) ? value : null;
  // A day the calendar has: Date.parse takes 2026-11-31 as 1 December, which the API refuses.
  if (name.startsWith('created_')) {
    const day = Date.parse(`${value}T00:00:00Z`);
    return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(day) && new Date(day).toISOString().startsWith(value) ? value : null;
  }
  return value;
};

/** The organization's runs, newest first, filtered and paged on the server; the filters live in the URL. */
export function RunsPage({ query }: { query: URLSearchParams }) {
  const filters = Object.fromEntries(FILTERS.map((f) => [f, shownFilter(f, query.get(f))])) as Record<
    (typeof FILTERS)[number],
    string | null
  >;
  // A range that ends before it starts matches nothing the API would answer (it refuses it): an address edited by hand
  // to one is listed without its end, and the end's field says so (the form refuses to apply one: `apply`).
  const invertedInAddress = isInverted(filters.created_after, filters.created_before);
  const filtered = FILTERS.some((f) => filters[f] !== null);
  const params = new URLSearchParams();
  for (const f of FILTERS) {
    const value = filters[f];
    if (value === null || (f === 'created_before' && invertedInAddress)) continue;
    if (f === 'status') for (const [name, v] of Object.entries(STANDINGS[value])) params.set(name, v);
    else params.set(f, f.startsWith('created_') ? dayBound(f, value) : value);
  }
  // An empty or unreadable page in the address (`?page=`, `?page=x`) is page 1 here; the API refuses them.
  params.set('page', /^[1-9]\d{0,8}$/.test(query.get('page') ?? '') ? query.get('page')! : '1');
  const { data, error, loading, reload } = useLoad<Paged<RunRow>>(`/runs?${params}`);
  // The fields are the person's until they apply them: a list arriving while they type must not put the address's
  // values back (a controlled `value` is set again on every render). When the address's filters change (applied,
  // cleared, back and forward), the fields are set to them, in place: a new form would drop the focus to the body.
  const formRef = useRef<HTMLFormElement>(null);
  // A range typed that ends before it starts: not applied, and said at its end's field.
  const [rangeRefused, setRangeRefused] = useState(false);
  const shown = FILTERS.map((f) => filters[f] ?? '').join('\n');
  useLayoutEffect(() => {
    setRangeRefused(false);
    const form = formRef.current;
    if (!form) return;
    for (const f of FILTERS) {
      const field = form.elements.namedItem(f) as HTMLInputElement | HTMLSelectElement | null;
      if (field) field.value = filters[f] ?? '';
    }
  }, [shown]);

  // Filters applied with "Show runs": the list that answers them is said in the status (the focus stays on the button,
  // and a screen reader heard nothing of the new list).
  const appliedByPerson = useRef(false);
  useEffect(() => {
    if (!appliedByPerson.current || !data) return;
    appliedByPerson.current = false;
    announce(data.meta.total === 0 ? t('runs.none_filtered') : t('runs.caption', { count: data.meta.total }));
  }, [data]);

  const apply = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const next = new URLSearchParams();
    for (const f of FILTERS) {
      const raw = form.get(f);
      const v = typeof raw === 'string' ? raw.trim() : '';
      if (v) next.set(f, v);
    }
    if (isInverted(next.get('created_after'), next.get('created_before'))) {
      setRangeRefused(true);
      // Focused before the field is drawn invalid, so the status says it too (a screen reader hears it either way).
      announce(t('runs.range_refused'), 'error');
      document.getElementById('created_before')?.focus();
      return;
    }
    setRangeRefused(false);
    appliedByPerson.current = true;
    navigate(`/console/runs${next.size ? `?${next}` : ''}`);
  };
  const rangeMessages = rangeRefused
    ? [t('runs.range_refused')]
    : invertedInAddress
      ? [t('runs.range_ignored', { from: filters.created_after ?? '' })]
      : undefined;
  const goTo = (page: number) => {
    const next = new URLSearchParams(query);
    next.set('page', String(page));
    navigate(`/console/runs?${next}`);
  };
  return (
    <section aria-labelledby="page-title">
      <PageTitle text={t('runs.title')} />
      <form ref={formRef} class="filters" onSubmit={apply} aria-label={t('runs.filters')}>
        <Choice name="status" value={filters.status} options={STATUSES} prefix="standing" />
        <Choice name="input_source" value={filters.input_source} options={SOURCES} prefix="source" />
        <div>
          <label for="created_after">{t('runs.created_after')}</label>
          <input
            id="created_after"
            name="created_after"
            type="date"
            defaultValue={filters.created_after ?? ''}
            onInput={() => setRangeRefused(false)}
          />
        </div>
        <div>
          <label for="created_before">{t('runs.created_before')}</label>
          <input
            id="created_before"
            name="created_before"
            type="date"
            defaultValue={filters.created_before ?? ''}
            onInput={() => setRangeRefused(false)}
            {...errorProps('created_before-error', rangeMessages)}
          />
          <FieldError id="created_before-error" messages={rangeMessages} />
        </div>
        <div>
          <label for="q">{t('runs.search')}</label>
          <input id="q" name="q" type="search" defaultValue={filters.q ?? ''} />
        </div>
        <div class="filter-actions">
          <button type="submit">{t('runs.apply')}</button>
          {/* Text typed and not applied is cleared too (with no filter in the address, the address does not change). */}
          <a
            href="/console/runs"
            onClick={() => {
              formRef.current?.reset();
              setRangeRefused(false);
            }}
          >
            {t('runs.clear')}
          </a>
        </div>
      </form>
      <LoadState loading={loading && !data} error={error} onRetry={reload} />
      {data && data.data.length === 0 && data.meta.total > 0 && (
        // A page past the last (an old bookmark): there are runs, on other pages.
        <p>
          {t('runs.none_on_page', { pages: data.meta.last_page, count: data.meta.last_page })}{' '}
          <a
            href="/console/runs"
            onClick={(e) => {
              e.preventDefault();
              goTo(1);
            }}
          >
            {t('runs.first_page')}
          </a>
        </p>
      )}
      {data && data.meta.total === 0 && <p>{filtered ? t('runs.none_filtered') : t('runs.none')}</p>}
      {data && data.data.length > 0 && (
        <div class="table-wrap stack" tabIndex={0}>
          <table>
            <caption class="visually-hidden">{t('runs.caption', { count: data.meta.total })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('runs.col.created')}</th>
                <th scope="col">{t('runs.col.file')}</th>
                <th scope="col">{t('runs.col.stage')}</th>
                <th scope="col">{t('runs.col.status')}</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((run) => (
                <tr key={run.id}>
                  <td data-label={t('runs.col.created')}>{formatDate(run.created_at)}</td>
                  {/* The file's name is the link: a list of links read out tells the runs apart (times alone read alike),
                      and the run's id and time after it tell two runs of one file apart. */}
                  <td class="wrap" data-label={t('runs.col.file')}>
                    <a href={`/console/runs/${run.id}`}>
                      {run.filename ?? t(`source.${run.input_source ?? 'raw'}`)}
                      <span class="visually-hidden">
                        {' '}
                        {t('runs.link_of', { id: run.id.slice(0, 8), date: formatDate(run.created_at) })}
                      </span>
                    </a>
                  </td>
                  <td data-label={t('runs.col.stage')}>{t(`stage.${run.stage}`)}</td>
                  <td data-label={t('runs.col.status')}>
                    <RunBadge run={run} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {/* Past the last page, the sentence above says so and leads back: the pager would say "Page 9 of 1". */}
      {data && data.data.length > 0 && (
        <Pager page={data.meta.current_page} lastPage={data.meta.last_page} total={data.meta.total} onPage={goTo} label={t('runs.pages')} />
      )}
    </section>
  );
}

/** A range whose end (a day) is before its start. */
const isInverted = (after: string | null | undefined, before: string | null | undefined): boolean =>
  Boolean(after && before && before < after);

/**
 * A date input's day as the API's bound: the start of the day for "after", its end for "before", in the browser's time
 * zone, the one the list shows its times in. Bounds of the UTC day listed, west of UTC, a run the list says was made on
 * 5 December under "Created from 6 December" (and left it out of "5 December"); east of UTC, the other way round.
 */
const dayBound = (name: string, day: string): string => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return day;
  const [year, month, date] = day.split('-').map(Number);
  const start = new Date(0);
  // setFullYear, not new Date(y, m, d): that reads the years 0 to 99 as 1900 to 1999.
  start.setFullYear(year, month - 1, date);
  start.setHours(0, 0, 0, 0);
  if (name === 'created_after') return start.toISOString();
  // The next day's start, less a millisecond: a day of a clock change is 23 or 25 hours long.
  const next = new Date(start);
  next.setDate(next.getDate() + 1);
  return new Date(next.getTime() - 1).toISOString();
};

function Choice({ name, value, options, prefix }: { name: string; value: string | null; options: string[]; prefix: string }) {
  return (
    <div>
      <label for={`f-${name}`}>{t(`runs.filter.${name}`)}</label>
      <select id={`f-${name}`} name={name}>
        <option value="">{t('runs.any')}</option>
        {options.map((o) => (
          <option key={o} value={o} selected={value === o}>
            {t(`${prefix}.${o}`)}
          </option>
        ))}
      </select>
    </div>
  );
}
