import { parseISO } from 'date-fns/parseISO';
import { utc } from '@date-fns/utc';
import type { RunListFilter } from '@app/read-model';
import { ApiError } from '../http/api-error';
import { choiceParam, paramsSentAsLists } from '../http/one-value-params';
import { type PageRequest, pageRequest } from '../http/pagination';

/** Run lists page 20 at a time by default, 100 at most. */
export const RUN_LIST_PAGES = { defaultPerPage: 20, maxPerPage: 100 };
const STATUSES = ['awaiting_upload', 'queued', 'processing', 'completed', 'failed'];
const STAGES = ['review', 'final'];
const INPUT_SOURCES = ['upload', 'image', 'raw'];
const REVIEW_STATES = ['active', 'approved', 'canceled', 'expired'];
const MAX_Q = 200;
/**
 * The instants a four-digit year writes. The bounds are compared as ISO texts (the read models'), and an
 * instant past 9999 is written `+010000-…`, which sorts before every year: `9999-12-31T24:00:00Z` or
 * `9999-12-31T23:00-14:00` listed no run as created before it. A bound outside is taken at the edge: no run
 * is created outside, so the list is the same.
 */
const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
/** The filters a run list reads, one value each; the console's list reads two more. */
const FILTERS = ['status', 'stage', 'created_after', 'created_before'];
const CONSOLE_FILTERS = [...FILTERS, 'input_source', 'review_state', 'q'];

export interface RunListQuery {
  filter: RunListFilter;
  page: PageRequest;
  /** The filters as the request wrote them, for the page links (paginate's `carried`). */
  carried: Record<string, string>;
}

/**
 * Reads a run list's query: `status`, `stage`, `created_after`, `created_before` (ISO 8601
 * date-times or dates), `page`, `per_page`; with `extended` (the console) also `input_source`,
 * `review_state` and `q`. Every bad value is a 422 in the validation envelope, all of them at once.
 */
export function parseRunListQuery(query: Record<string, unknown>, extended = false): RunListQuery {
  const fields: Record<string, string[]> = {};
  const filter: RunListFilter = {};
  const carried: Record<string, string> = {};
  const choice = (name: 'status' | 'stage' | 'input_source' | 'review_state', allowed: string[]) => {
    const v = choiceParam(query, name, allowed, fields);
    if (v !== undefined) filter[name] = carried[name] = v;
  };
  choice('status', STATUSES);
  choice('stage', STAGES);
  if (extended) choice('input_source', INPUT_SOURCES);
  if (extended) choice('review_state', REVIEW_STATES);
  // `expired` is an active review past its deadline: judged now.
  if (filter.review_state !== undefined) filter.now = new Date().toISOString();
  for (const name of ['created_after', 'created_before'] as const) {
    const v = query[name];
    if (v === undefined) continue;
    // date-fns checks the calendar (Date.parse rolled "2026-11-31" over into 1 December) and reads a time without
    // a zone in UTC (Date.parse read it in the server's local time); an impossible date or time is NaN.
    // date-fns checks an offset's minutes but not its hours: past 23 (RFC 3339's limit) the offset is no zone's.
    const form = typeof v === 'string' ? /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-](\d{2}):?\d{2})?)?$/.exec(v) : null;
    const at = form && Number(form[3] ?? 0) <= 23 ? parseISO(v as string, { in: utc }).getTime() : NaN;
    if (Number.isNaN(at)) {
      fields[name] = [`The ${name.replace('_', ' ')} field must be an ISO 8601 date or date-time.`];
      continue;
    }
    carried[name] = v as string;
    // A bare date is its day's start for "after" and its end for "before" (UTC), so both bounds include it.
    const bound = name === 'created_before' && /^\d{4}-\d{2}-\d{2}$/.test(v as string) ? at + 86_399_999 : at;
    filter[name] = new Date(Math.min(Math.max(bound, FIRST_INSTANT), LAST_INSTANT)).toISOString();
  }
  if (filter.created_after && filter.created_before && filter.created_after > filter.created_before)
    fields.created_before = ['The created before field must be later than created after.'];
  if (extended && query.q !== undefined && query.q !== '') {
    if (typeof query.q !== 'string' || query.q.length > MAX_Q) fields.q = [`The q field must be a text of at most ${MAX_Q} characters.`];
    else {
      filter.q = query.q.trim();
      carried.q = query.q;
    }
  }
  let page: PageRequest | null = null;
  try {
    page = pageRequest(query, RUN_LIST_PAGES);
  } catch (err) {
    if (err instanceof ApiError && err.fields) Object.assign(fields, err.fields);
    else throw err;
  }
  Object.assign(fields, paramsSentAsLists(query, extended ? CONSOLE_FILTERS : FILTERS));
  if (Object.keys(fields).length > 0 || !page) throw ApiError.validation(fields);
  return { filter, page, carried };
}
