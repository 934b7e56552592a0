import type { MemberRole } from '@app/accounts';

/**
 * A URL a customer wrote (a run's `notify_url`, the default webhook URL) as a console member may
 * read it. Such a URL may carry credentials for its receiver: a password (sent as Basic
 * credentials), a token in its query (`?token=`, `?access_token=`, any name) or its fragment.
 * Owners and admins set them and see them; a viewer, who gets no secret, sees the scheme, the user
 * name, the host and the path, with every query value, the password and the fragment hidden.
 * Parsed as a URL (a password may hold `@`, a value `%2B`), not matched by a pattern.
 */
export function urlForRole(url: string, role: MemberRole): string {
  if (role !== 'viewer') return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '[hidden]';
  }
  const user = parsed.username ? `${parsed.username}${parsed.password ? ':[hidden]' : ''}@` : parsed.password ? ':[hidden]@' : '';
  const query = parsed.search
    ? `?${parsed.search
        .slice(1)
        .split('&')
        .map((pair) => (pair.includes('=') ? `${pair.slice(0, pair.indexOf('='))}=[hidden]` : pair))
        .join('&')}`
    : '';
  return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}${query}${parsed.hash ? '#[hidden]' : ''}`;
}

/** A history or audit entry whose details may name a webhook URL (`details.url`), as a member of `role` may read it. */
export function withUrlForRole<E extends { details: Record<string, unknown> }>(entry: E, role: MemberRole): E {
  const url = entry.details.url;
  return typeof url === 'string' ? { ...entry, details: { ...entry.details, url: urlForRole(url, role) } } : entry;
}
