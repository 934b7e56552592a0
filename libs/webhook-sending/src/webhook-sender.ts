import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Inject, Injectable } from '@nestjs/common';
import axios, { type AxiosError, type AxiosInstance } from 'axios';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { retryAfterMs } from '@app/http-headers';
import type { WebhookEventName } from '@app/contracts';
import { guardedAgents } from '@app/url-safety';
import { hideWebhookSecrets } from './hidden-secrets';

/** The event name of a test delivery (docs/webhooks.md, "Test events"). */
export const TEST_WEBHOOK_EVENT = 'webhook.test';
export type SentEventName = WebhookEventName | typeof TEST_WEBHOOK_EVENT;

/** How much of the receiver's answer is kept with the attempt (characters). */
export const RESPONSE_EXCERPT_CHARS = 512;
/** Bytes read at most for the excerpt (UTF-8 needs up to 4 per character). */
const EXCERPT_MAX_BYTES = RESPONSE_EXCERPT_CHARS * 4;
/** How long reading the excerpt may take at most, past the status line. */
const EXCERPT_MAX_WAIT_MS = 1000;

export interface WebhookMessage {
  deliveryId: string;
  event: SentEventName;
  /** `X-Service-Id`: the run's id (a test event's own id). */
  runId: string;
  secret: string;
  body: string;
}

export interface AttemptResult {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  /** The receiver's Retry-After on 429/503, in ms. */
  retryAfterMs: number | null;
  /** From sending the request to the answer's status line (or to the failure), in ms. */
  durationMs: number;
  /** The first 512 characters of the answer's body; null when there was no answer or it was empty. */
  responseExcerpt: string | null;
}

/** The Standard Webhooks and spec headers of one attempt (the signature covers id, timestamp and body). */
export function webhookHeaders(message: WebhookMessage, at: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'transformation-service-webhooks/1',
    'x-service-event': message.event,
    'x-service-id': message.runId,
    'x-service-webhook-secret': message.secret,
    'webhook-id': message.deliveryId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(message.secret).sign(message.deliveryId, at, message.body),
  };
}

/**
 * One webhook attempt: a JSON POST with the spec's headers and a Standard Webhooks
 * signature, through agents that refuse non-public addresses at connect time. Any 2xx
 * acknowledges; redirects are not followed. Of the answer's body only the first 512
 * characters are read (for a second at most), then the stream is dropped, so a receiver
 * streaming a huge or endless answer costs nothing.
 */
@Injectable()
export class WebhookSender {
  private readonly http: AxiosInstance;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.http = axios.create({
      ...guardedAgents(config.webhooks.allowedAddresses),
      timeout: config.webhooks.timeoutMs,
      maxRedirects: 0,
      responseType: 'stream',
      validateStatus: () => true,
      // Never let axios pick up proxy settings from the environment: the guard must see the real target.
      proxy: false,
    });
  }

  async send(url: string, message: WebhookMessage): Promise<AttemptResult> {
    const headers = webhookHeaders(message, new Date());
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const res = await this.http.post<Readable>(url, message.body, { headers });
      const durationMs = elapsed();
      const excerpt = await readExcerpt(res.data, EXCERPT_MAX_WAIT_MS);
      // Never stored as the receiver echoed it: the secret it was sent (hidden-secrets.ts).
      const responseExcerpt = excerpt === null ? null : hideWebhookSecrets(excerpt);
      const status = res.status;
      const answered = { statusCode: status, durationMs, responseExcerpt };
      if (status >= 200 && status < 300) return { delivered: true, error: null, retryAfterMs: null, ...answered };
      const wait = status === 429 || status === 503 ? retryAfterMs(res.headers['retry-after']) : null;
      const error = status >= 300 && status < 400 ? `redirect (HTTP ${status}) not followed` : `HTTP ${status}`;
      return { delivered: false, error, retryAfterMs: wait, ...answered };
    } catch (err) {
      return {
        delivered: false,
        statusCode: null,
        error: describe(err as AxiosError),
        retryAfterMs: null,
        durationMs: elapsed(),
        responseExcerpt: null,
      };
    }
  }
}

/**
 * The first RESPONSE_EXCERPT_CHARS characters of a body (UTF-8), reading no more than a few
 * KB and waiting no longer than `maxWaitMs`; the stream is destroyed afterwards either way.
 */
export function readExcerpt(stream: Readable | undefined, maxWaitMs: number): Promise<string | null> {
  if (!stream || typeof stream.on !== 'function') return Promise.resolve(null);
  return new Promise((resolve) => {
    const decoder = new StringDecoder('utf8');
    let text = '';
    let bytes = 0;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.off('data', onData);
      stream.destroy();
      const excerpt = text.slice(0, RESPONSE_EXCERPT_CHARS);
      resolve(excerpt.length > 0 ? excerpt : null);
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const room = EXCERPT_MAX_BYTES - bytes;
      const part = buf.length > room ? buf.subarray(0, room) : buf;
      bytes += part.length;
      text += decoder.write(part);
      if (text.length >= RESPONSE_EXCERPT_CHARS || bytes >= EXCERPT_MAX_BYTES) finish();
    };
    const timer = setTimeout(finish, maxWaitMs);
    stream.on('data', onData);
    stream.once('end', () => {
      text += decoder.end();
      finish();
    });
    stream.once('error', finish);
    stream.once('close', finish);
  });
}

/** Why an attempt got no answer, without the URL's query, headers or secret. */
function describe(err: AxiosError): string {
  if (err.code === 'ECONNABORTED' || err.code === 'ETIMEDOUT') return 'no answer within the timeout';
  if (/is not allowed/.test(err.message ?? '')) return 'refused: the address is not public';
  if (err.code === 'ECONNRESET') return 'connection reset';
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND') return 'host not found';
  return err.code ? `network error (${err.code})` : 'network error';
}
