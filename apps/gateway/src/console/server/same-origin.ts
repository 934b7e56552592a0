import type { IncomingHttpHeaders } from 'node:http';

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * Whether a state-changing request may come from where it says it comes from: the browser's
 * Origin (or, lacking it, Referer) must be the service's public origin or the origin of the
 * Host it was sent to. A request with neither header is not a browser's cross-site request
 * (browsers send Origin on every POST, PUT, PATCH and DELETE): it passes this check, and the
 * CSRF token check still applies to every call with a session.
 */
export function isSameOrigin(headers: IncomingHttpHeaders, publicBaseUrl: string, protocol: string): boolean {
  const claimed =
    typeof headers.origin === 'string' ? headers.origin : typeof headers.referer === 'string' ? originOf(headers.referer) : undefined;
  if (claimed === undefined) return true;
  if (claimed === null || claimed === 'null') return false;
  const allowed = new Set<string | null>([originOf(publicBaseUrl)]);
  if (typeof headers.host === 'string') allowed.add(originOf(`${protocol}://${headers.host}`));
  return allowed.has(claimed);
}
