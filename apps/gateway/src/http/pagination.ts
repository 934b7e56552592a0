import { ApiError } from './api-error';
import { GAP, pageWindow } from './page-window';
import { paramsSentAsLists } from './one-value-params';

export interface PageRequest {
  page: number;
  perPage: number;
  offset: number;
}

/** Reads `?page=` and `?per_page=` (default 15, maximum 100; values out of range are a 422). */
export function pageRequest(query: Record<string, unknown>, defaults: { defaultPerPage: number; maxPerPage: number }): PageRequest {
  const fields: Record<string, string[]> = {};
  const read = (name: string, fallback: number, max: number): number => {
    const raw = query[name];
    if (raw === undefined) return fallback;
    // Plain decimal digits only: Number() would also take "0x3", "1e2", "+5" and " 5", and "" (0). An empty
    // value is a bad one too, not the default: a client that wrote `?page=${n}` with no n gets told.
    const n = typeof raw === 'string' && /^[0-9]{1,16}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > max) {
      fields[name] = [`The ${name.replace('_', ' ')} field must be an integer between 1 and ${max}.`];
      return fallback;
    }
    return n;
  };
  const page = read('page', 1, Number.MAX_SAFE_INTEGER);
  const perPage = read('per_page', defaults.defaultPerPage, defaults.maxPerPage);
  Object.assign(fields, paramsSentAsLists(query, ['page', 'per_page']));
  if (Object.keys(fields).length > 0) throw ApiError.validation(fields);
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * The Laravel-style envelope the spec describes: `{ data, links, meta }`. `carried`: the list's
 * filters as the request gave them, kept in every link (Laravel's `withQueryString`), so the next
 * page is a page of the same list; `meta.path` stays the bare path.
 */
export function paginate<T>(data: T[], total: number, req: PageRequest, path: string, carried: Record<string, string> = {}) {
  const lastPage = Math.max(1, Math.ceil(total / req.perPage));
  // The filters are encoded once: a long list makes a link per page.
  const filters = new URLSearchParams(carried).toString();
  const url = (p: number) => `${path}?${filters === '' ? '' : `${filters}&`}page=${p}&per_page=${req.perPage}`;
  const from = data.length > 0 ? req.offset + 1 : null;
  // Laravel's window of pages, a "..." entry where pages are left out (page-window.ts).
  const pageLinks = pageWindow(req.page, lastPage).map((p) =>
    p === GAP ? { url: null, label: '...', active: false } : { url: url(p), label: String(p), active: p === req.page },
  );
  return {
    data,
    links: {
      first: url(1),
      last: url(lastPage),
      prev: req.page > 1 ? url(Math.min(req.page - 1, lastPage)) : null,
      next: req.page < lastPage ? url(req.page + 1) : null,
    },
    meta: {
      current_page: req.page,
      from,
      last_page: lastPage,
      links: [
        { url: req.page > 1 ? url(Math.min(req.page - 1, lastPage)) : null, label: '&laquo; Previous', active: false },
        ...pageLinks,
        { url: req.page < lastPage ? url(req.page + 1) : null, label: 'Next &raquo;', active: false },
      ],
      path,
      per_page: req.perPage,
      to: from === null ? null : req.offset + data.length,
      total,
    },
  };
}
