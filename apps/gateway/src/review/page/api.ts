/** The review's JSON calls, all under the run's signed link. */
import { messages, t } from './i18n';

/** A call that failed: the service's error code and HTTP status (none when the service was not reached). */
export interface ApiFailure extends Error {
  code?: string;
  status?: number;
}

const signature = new URLSearchParams(location.search).get('signature') || '';
const base = location.pathname.replace(/\/$/, '');

export async function api<T>(path: string, method = 'GET', body?: unknown): Promise<T> {
  const res = await fetch(`${base}/${path}?signature=${encodeURIComponent(signature)}`, {
    method,
    cache: 'no-store',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data: { error?: { code?: string; message?: string } } | null = null;
  try {
    data = (await res.json()) as { error?: { code?: string; message?: string } };
  } catch {
    /* an empty or non-JSON answer */
  }
  if (!res.ok) {
    const err: ApiFailure = new Error(data?.error?.message || res.statusText);
    err.code = data?.error?.code;
    err.status = res.status;
    throw err;
  }
  return data as T;
}

/**
 * Why a call failed, in the reviewer's language: the catalog's text for the error's code; for none it knows, that the
 * service was not reached, or (5xx: the service restarting, or a proxy's own answer) is not available; the service's
 * own (English) message only for a refusal whose code the catalog does not know.
 */
export function errorText(err: ApiFailure): string {
  const byCode = err.code ? `errors.${err.code}` : '';
  const key = messages[byCode] ? byCode : !err.status ? 'errors.network' : err.status >= 500 ? 'errors.service_unavailable' : '';
  return messages[key] ? t(key) : err.message;
}
