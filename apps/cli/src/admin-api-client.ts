import { operationFailed, usageError } from './exit-codes';

/** Where the admin API is and how to authenticate: SERVICE_URL (default http://localhost:$PORT) and ADMIN_TOKEN. */
export interface AdminApiTarget {
  baseUrl: string;
  token: string;
}

export interface AdminRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below /admin/v1, e.g. `/organizations/<org>/api-keys`. */
  path: string;
  body?: unknown;
}

export interface AdminResponse {
  ok: boolean;
  status: number;
  statusText: string;
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty (204). */
  body: unknown;
}

/** The service URL the admin commands talk to (also shown in the help). */
export function serviceUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.SERVICE_URL || `http://localhost:${env.PORT || 3000}`).replace(/\/+$/, '');
}

/** SERVICE_URL and ADMIN_TOKEN from the environment; a usage error when either is missing or invalid. */
export function adminApiTarget(env: NodeJS.ProcessEnv = process.env): AdminApiTarget {
  const baseUrl = serviceUrl(env);
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw usageError(`SERVICE_URL must be an http(s) URL, got "${baseUrl}".`);
  }
  const token = env.ADMIN_TOKEN;
  if (!token) {
    throw usageError("ADMIN_TOKEN is not set: the admin API commands need the service's admin token (ADMIN_TOKEN=… npm run cli -- …).");
  }
  return { baseUrl, token };
}

/** Path segment from a command-line id. */
export const segment = (value: string): string => encodeURIComponent(value);

/** Sends one request to `<SERVICE_URL>/admin/v1<path>` with the admin token. Not reaching the service is an operation failure. */
export async function sendAdminRequest(target: AdminApiTarget, request: AdminRequest): Promise<AdminResponse> {
  const hasBody = request.body !== undefined;
  let res: Response;
  try {
    res = await fetch(`${target.baseUrl}/admin/v1${request.path}`, {
      method: request.method,
      headers: { authorization: `Bearer ${target.token}`, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
      body: hasBody ? JSON.stringify(request.body) : undefined,
    });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    throw operationFailed(`Cannot reach the service at ${target.baseUrl}: ${cause}`);
  }
  const text = await res.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { ok: res.ok, status: res.status, statusText: res.statusText, body };
}
