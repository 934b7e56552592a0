import { type PageRequest, pageRequest } from '../../http/pagination';

/** Console lists page like the public API's: `page`, `per_page` (default 20, at most 100). */
export const consolePage = (query: Record<string, unknown>): PageRequest => pageRequest(query, { defaultPerPage: 20, maxPerPage: 100 });
