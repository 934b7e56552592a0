/**
 * Query parameters that are credentials: a signed link or URL is as good as the secret that signed it.
 * Also what the console hides from a viewer in a webhook receiver's echoed answer (console/server/delivery-for-role.ts).
 */
export const SECRET_QUERY_PARAMS = [
  'signature',
  'sig',
  'token',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'api_key',
  'apikey',
  'key',
] as const;
const SECRET_PARAMS = new RegExp(`^(${SECRET_QUERY_PARAMS.join('|')})$`, 'i');

/**
 * A URL (absolute or a request's path and query) fit for a log line: the values of secret query
 * parameters are replaced by `[redacted]`; everything else stays as it was. Pure.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeURIComponentSafe(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && SECRET_PARAMS.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

const decodeURIComponentSafe = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
