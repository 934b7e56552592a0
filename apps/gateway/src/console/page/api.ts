/** The console's calls to /console/api: the session's CSRF token on every change, errors from the API's envelope. */

import { t } from './i18n';

export interface Envelope {
  error: { code: string; message: string; type: string; request_id: string; fields?: Record<string, string[]> };
}

/** An answer other than 2xx: the envelope's code, message and field messages. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string[]> = {},
    readonly retryAfter: string | null = null,
    readonly requestId: string | null = null,
  ) {
    super(message);
  }
}

/**
 * What to tell the person when an action that has no form of its own failed: the API's field
 * messages when it gave some (its message alone, "The given data was invalid.", does not say
 * what was wrong), and for a server error the request id its message asks them to quote.
 */
export function failureText(failure: ApiFailure): string {
  const reasons = Object.values(failure.fields).flat();
  const text = reasons.length > 0 ? reasons.join(' ') : failure.message;
  return failure.status >= 500 && failure.requestId ? `${text} ${t('api.request_id', { id: failure.requestId })}` : text;
}

/**
 * What to say when a form's send is refused: with field messages, that they are beside the fields (the API's own
 * message, "The given data was invalid.", says nothing of what), and in full those about a field the form has no input
 * for (`shown` names those it has), which would be said nowhere else. Without field messages, failureText's.
 */
export function refusalText(failure: ApiFailure, shown: readonly string[]): string {
  const fields = Object.entries(failure.fields);
  if (fields.length === 0) return failureText(failure);
  const elsewhere = fields.filter(([field]) => !shown.includes(field)).flatMap(([, messages]) => messages);
  const beside = fields.filter(([field]) => shown.includes(field)).length;
  return [beside > 0 ? t('form.refused', { count: beside }) : '', ...elsewhere].filter(Boolean).join(' ');
}

let csrfToken: string | null = null;
let onSignedOut: () => void = () => undefined;

export const setCsrfToken = (token: string | null): void => {
  csrfToken = token;
};
/** Called when a call finds the session ended (401): the app shows the sign-in form. */
export const whenSignedOut = (handler: () => void): void => {
  onSignedOut = handler;
};
let onForbidden: () => void = () => undefined;
/**
 * Called when a call is refused for the member's role (403 forbidden): another owner may have changed it since the
 * page was drawn, so the app reads the session again and every page offers only what the role now allows.
 */
export const whenForbidden = (handler: () => void): void => {
  onForbidden = handler;
};

export async function api<T>(method: string, path: string, body?: unknown, raw?: { bytes: Blob; type: string }): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let payload: BodyInit | undefined;
  if (raw) {
    headers['content-type'] = raw.type || 'application/octet-stream';
    payload = raw.bytes;
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(`/console/api${path}`, { method, headers, body: payload, credentials: 'same-origin' });
  } catch {
    throw new ApiFailure(0, 'network', t('api.network'));
  }
  const text = await res.text();
  const parsed = text ? safeJson(text) : null;
  if (res.ok) return parsed as T;
  const error = (parsed as Envelope | null)?.error;
  const failure = new ApiFailure(
    res.status,
    error?.code ?? 'unexpected',
    error?.message ?? t('api.unexpected', { status: res.status }),
    error?.fields ?? {},
    res.headers.get('retry-after'),
    error?.request_id ?? res.headers.get('x-request-id'),
  );
  if (res.status === 401 && failure.code === 'unauthenticated') onSignedOut();
  if (res.status === 403 && failure.code === 'forbidden') onForbidden();
  throw failure;
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** The pagination envelope of the API's lists. */
export interface Paged<T> {
  data: T[];
  meta: { current_page: number; last_page: number; total: number; per_page: number; from: number | null; to: number | null };
}
