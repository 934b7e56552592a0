import type { IncomingHttpHeaders } from 'node:http';

const urlOf = (url: string): URL | null => {
  try {
    return new URL(url);
  } catch {
    return null;
  }
};
const originOf = (url: string): string | null => urlOf(url)?.origin ?? null;

/** localhost, 127.0.0.0/8 and ::1: names no other machine can make a browser send. */
const isLoopbackHost = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);

/**
 * Whether a state-changing request may come from where it says it comes from: the browser's
 * Origin (or, lacking it, Referer) must be the service's public origin, or the origin of the
 * Host it was sent to when that Host is a loopback name (the console opened at 127.0.0.1 as
 * well as at localhost). Any other Host is the sender's to choose: a page whose own name was
 * pointed at the service (DNS rebinding) sends its name as both, so it is not trusted. A request
 * with neither header is not a browser's cross-site request (browsers send Origin on every POST,
 * PUT, PATCH and DELETE): it passes this check, and the CSRF token check still applies to every
 * call with a session.
 */
export function isSameOrigin(headers: IncomingHttpHeaders, publicBaseUrl: string, protocol: string): boolean {
  const claimed =
    typeof headers.origin === 'string' ? headers.origin : typeof headers.referer === 'string' ? originOf(headers.referer) : undefined;
  if (claimed === undefined) return true;
  if (claimed === null || claimed === 'null') return false;
  if (claimed === originOf(publicBaseUrl)) return true;
  if (typeof headers.host !== 'string') return false;
  const sentTo = urlOf(`${protocol}://${headers.host}`);
  return sentTo !== null && isLoopbackHost(sentTo.hostname) && sentTo.origin === claimed;
}
