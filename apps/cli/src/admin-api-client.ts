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
  // Without SERVICE_URL the URL is made from PORT: a PORT that is no port is PORT's fault, not SERVICE_URL's.
  if (!env.SERVICE_URL && env.PORT && !isPortNumber(env.PORT)) {
    throw usageError(`PORT is not a port number (1-65535): got "${env.PORT}". Set PORT to the service's port, or SERVICE_URL to its URL.`);
  }
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

const isPortNumber = (value: string): boolean => /^\d{1,5}$/.test(value) && Number(value) >= 1 && Number(value) <= 65535;

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
    throw operationFailed(`Cannot reach the service at ${target.baseUrl}: ${unreachableBecause(err, target.baseUrl)}`);
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

/** Why fetch got no answer from `baseUrl`, said for an operator (undici's own words are in `cause`). */
function unreachableBecause(err: unknown, baseUrl: string): string {
  const cause = (err as { cause?: { message?: string; code?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'the connection was refused (is the service running there, and is SERVICE_URL right?)';
  // fetch refuses, without trying, the ports of the Fetch standard's "bad ports" list (1, 7, 9, ..., 6000, 10080).
  if (cause?.message === 'bad port') {
    return `the connection was refused: port ${new URL(baseUrl).port} is one fetch never connects to (a blocked port); SERVICE_URL must name the service's port`;
  }
  return cause?.message ?? (err as Error).message;
}
