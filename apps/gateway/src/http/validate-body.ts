import { literalAddressProblem } from '@app/url-safety';
import { ApiError } from './api-error';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';

/** Field-keyed messages, as in the spec's 422 `error.fields`. */
export type FieldErrors = Record<string, string[]>;

const collect = (errors: ValidationError[], prefix = '', out: FieldErrors = {}): FieldErrors => {
  for (const e of errors) {
    const key = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) out[key] = [...(out[key] ?? []), ...Object.values(e.constraints)];
    if (e.children?.length) collect(e.children, key, out);
  }
  return out;
};

/** Validates a JSON body against a DTO class; a body that is not an object is one error on `body`. */
/** The one problem of a body that is not a JSON object: no member of it can be judged. */
export const BODY_NOT_AN_OBJECT = 'The request body must be a JSON object.';

/**
 * A body that may be left out: none at all is `{}` (each member then takes its default), a JSON object is itself,
 * anything else is 422 on `body`, never read as "no body" (an approval sent garbled must not approve).
 */
export function objectBodyOrNone<T extends object>(body: unknown): T {
  if (body === undefined) return {} as T;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as T;
  throw ApiError.validation({ body: [BODY_NOT_AN_OBJECT] });
}

export async function validateBody<T extends object>(cls: ClassConstructor<T>, body: unknown): Promise<{ value: T; errors: FieldErrors }> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { value: {} as T, errors: { body: [BODY_NOT_AN_OBJECT] } };
  }
  const value = plainToInstance(cls, body, { enableImplicitConversion: false });
  const errors = await validate(value, { forbidUnknownValues: false, stopAtFirstError: true });
  return { value, errors: collect(errors) };
}

export const addError = (errors: FieldErrors, field: string, message: string): void => {
  (errors[field] ??= []).push(message);
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Half of a surrogate pair without its other half (with the u flag a whole pair is one code point, not Cs). */
const LONE_SURROGATE = /\p{Cs}/u;

/** What a text with a lone surrogate is told, after "The <field> field ". */
export const LONE_SURROGATES_PROBLEM = 'must not contain lone surrogates (text that is not valid Unicode)';

/**
 * Whether any key or text in the caller's JSON has a lone surrogate. JSON can write one (`"\ud800"`), but it
 * is no character: it cannot be written as UTF-8 (it would be stored as U+FFFD), and webhook receivers would read
 * it as U+FFFD or refuse the delivery. (Depth is bounded by the body's shape limits, checked before.)
 */
export function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (isPlainObject(value)) return Object.entries(value).some(([key, v]) => LONE_SURROGATE.test(key) || hasLoneSurrogate(v));
  return false;
}

/**
 * Blanks, control and invisible format characters, and lone surrogates: a URL carries them percent-encoded. Raw, the
 * URL parser drops some and encodes others, so the address called would not be the one shown in the settings.
 */
const NOT_IN_A_URL = /[\s\p{Cc}\p{Cf}\p{Cs}]/u;

/**
 * An absolute URL as RFC 3986 writes one with a host: the scheme, `//`, then the host (not a `/`, `\`, `?` or `#`),
 * and no backslash anywhere (no URI has one). The WHATWG parser mends the rest into some address: `https:example.com`,
 * `https:/example.com` and `https:///example.com` into `https://example.com/`, `http:\\host\path` into
 * `http://host/path`, while the webhook sender refuses `http:host/path` and `http:\\host\path` (ERR_INVALID_URL):
 * such a `notify_url` was taken with a 201 and never delivered, and none of them is the address it reads as.
 */
const WRITTEN_WITH_A_HOST = /^[a-z][a-z\d+.-]*:\/\/[^/\\?#]/i;

/**
 * What is wrong with a URL the service will call or send a reviewer to: not http(s), not
 * HTTPS in production, too long, with characters a URL carries only encoded, or (when `allowed`
 * is given: webhooks and callbacks) a literal non-public address or localhost. Null when it is fine.
 * (The spec: "HTTPS required in production".)
 */
export function callbackUrlProblem(value: unknown, production: boolean, allowed?: string[]): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || NOT_IN_A_URL.test(value)) return 'must be a valid URL.';
  if (!WRITTEN_WITH_A_HOST.test(value) || value.includes('\\')) return 'must be a valid URL.';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a valid URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be a valid URL.';
  if (production && url.protocol !== 'https:') return 'must use HTTPS.';
  if (value.length > 2048) return 'must not be greater than 2048 characters.';
  return allowed ? literalAddressProblem(url, allowed) : null;
}
