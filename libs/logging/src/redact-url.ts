/** Query parameters that are credentials: a signed link or URL is as good as the secret that signed it. */
const SECRET_QUERY_PARAMS = [
  'secret',
  'password',
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
const SECRET_PARAMS = new RegExp(`^(${SECRET_QUERY_PARAMS.join('|')})$`);
/** Names that say what they hold: `access_token`, `client_secret`, `api-key`. */
const CREDENTIAL_SUFFIX = /[_-](token|secret|signature|password|key)$/;

/**
 * Whether a query parameter holds a credential. Its name is read as a server framework may read it: any letter case,
 * and `signature[]`, `signature[0]` or `signature.x` as `signature` (a request with such a name still carries the
 * value, and a log line must not, whatever the route made of it).
 */
const isSecretName = (name: string): boolean => {
  const base = name.toLowerCase().split(/[[.]/, 1)[0];
  return SECRET_PARAMS.test(base) || CREDENTIAL_SUFFIX.test(base);
};

/**
 * A URL (absolute or a request's path and query) fit for a log line: the values of secret query
 * parameters are replaced by `[redacted]`; everything else stays as it was. Pairs are split at `&`
 * and `;` (some servers take both), and a name is read decoded, so `signature%3D…` (the `=` encoded)
 * loses its value too. Pure.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split(/([&;])/)
    .map((pair, i) => {
      if (i % 2 === 1) return pair; // a separator
      const eq = pair.indexOf('=');
      if (eq >= 0) return isSecretName(decodeURIComponentSafe(pair.slice(0, eq))) ? `${pair.slice(0, eq)}=[redacted]` : pair;
      const decoded = decodeURIComponentSafe(pair);
      const encodedEq = decoded.indexOf('=');
      return encodedEq >= 0 && isSecretName(decoded.slice(0, encodedEq)) ? `${decoded.slice(0, encodedEq)}=[redacted]` : pair;
    })
    .join('');
  return `${url.slice(0, q)}?${query}`;
}

const decodeURIComponentSafe = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
