import { ADMIN_TOKEN, call, type Json, type Service } from './service-harness';

/** The parts of a Set-Cookie header, by lower-cased attribute name (`value` is the cookie's value). */
export function cookieAttributes(setCookie: string): Record<string, string | true> {
  const [pair, ...attrs] = setCookie.split(';').map((p) => p.trim());
  const out: Record<string, string | true> = { value: pair.slice(pair.indexOf('=') + 1) };
  for (const attr of attrs) {
    const eq = attr.indexOf('=');
    if (eq < 0) out[attr.toLowerCase()] = true;
    else out[attr.slice(0, eq).toLowerCase()] = attr.slice(eq + 1);
  }
  return out;
}

/**
 * A console member's side of the console API as a page would call it: the session cookie and
 * the CSRF token kept, the Origin a same-site page sends.
 */
export class ConsoleClient {
  cookie: string | null = null;
  csrf: string | null = null;
  session: { member: { id: string; email: string; role: string }; organization: { id: string; name: string } } | null = null;

  constructor(readonly baseUrl: string) {}

  /** A call under /console/api; `origin: null` sends none, `csrf: null` leaves the token out. */
  async request(
    method: string,
    path: string,
    options: { body?: unknown; raw?: Buffer | string; origin?: string | null; csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Json> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.cookie) headers.cookie = `console_session=${this.cookie}`;
    const origin = options.origin === undefined ? this.baseUrl : options.origin;
    if (method !== 'GET' && origin) headers.origin = origin;
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (method !== 'GET' && csrf) headers['x-csrf-token'] = csrf;
    const res = await call(`${this.baseUrl}/console/api${path}`, { method, body: options.body, raw: options.raw, headers });
    const set = res.headers.get('set-cookie');
    if (set?.startsWith('console_session=')) {
      const value = cookieAttributes(set).value as string;
      this.cookie = value === '' ? null : value;
    }
    const data = (res.body as { data?: { csrf_token?: string } } | null)?.data;
    if (res.status === 200 && data?.csrf_token) {
      this.csrf = data.csrf_token;
      this.session = data as ConsoleClient['session'];
    }
    return res;
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, body?: unknown) => this.request('POST', path, { body: body ?? {} });
  put = (path: string, body: unknown) => this.request('PUT', path, { body });
  patch = (path: string, body: unknown) => this.request('PATCH', path, { body });
  delete = (path: string) => this.request('DELETE', path);

  signIn(email: string, password: string): Promise<Json> {
    return this.request('POST', '/session', { body: { email, password } });
  }

  /** Opens an invitation link's API side and accepts it. */
  async accept(invitationUrl: string, displayName: string, password: string): Promise<Json> {
    const url = new URL(invitationUrl);
    const id = url.pathname.split('/').pop();
    return this.request('POST', `/invitations/${id}/accept?signature=${url.searchParams.get('signature')}`, {
      body: { display_name: displayName, password },
    });
  }
}

/** The operator's invitation (admin API). */
export async function inviteByOperator(svc: Service, organizationId: string, email: string, role = 'owner') {
  const res = await call(`${svc.baseUrl}/admin/v1/organizations/${organizationId}/invitations`, {
    token: ADMIN_TOKEN,
    body: { email, role },
  });
  if (res.status !== 201) throw new Error(`invitation: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; url: string; email: string; role: string; expires_at: string };
}

export const PASSWORD = 'correct horse battery staple';

/** An organization (admin API) with a signed-in owner. */
export async function organizationWithOwner(svc: Service, name: string) {
  const org = await call(`${svc.baseUrl}/admin/v1/organizations`, { token: ADMIN_TOKEN, body: { name } });
  if (org.status !== 201) throw new Error(`organization: ${org.status}`);
  const email = `owner-${org.body.id.slice(0, 8)}@example.com`;
  const invitation = await inviteByOperator(svc, org.body.id, email);
  const owner = new ConsoleClient(svc.baseUrl);
  const accepted = await owner.accept(invitation.url, `${name} Owner`, PASSWORD);
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { org: org.body as { id: string; api_key: string; api_key_id: string; webhook_secret: string }, owner, email };
}
