import type { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import axios, { type AxiosError, type AxiosInstance } from 'axios';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { retryAfterMs } from '@app/http-headers';
import type { WebhookEventName } from '@app/contracts';
import { guardedAgents } from '@app/url-safety';

export interface WebhookMessage {
  deliveryId: string;
  event: WebhookEventName;
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
}

/**
 * One webhook attempt: a JSON POST with the spec's headers and a Standard Webhooks
 * signature, through agents that refuse non-public addresses at connect time. Any 2xx
 * acknowledges; redirects are not followed; the answer's body is never read (the
 * stream is dropped at once), so a receiver streaming a huge answer costs nothing.
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
    const timestamp = new Date();
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'transformation-service-webhooks/1',
      'x-service-event': message.event,
      'x-service-id': message.runId,
      'x-service-webhook-secret': message.secret,
      'webhook-id': message.deliveryId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': new Webhook(message.secret).sign(message.deliveryId, timestamp, message.body),
    };
    try {
      const res = await this.http.post<Readable>(url, message.body, { headers });
      res.data?.destroy?.();
      const status = res.status;
      if (status >= 200 && status < 300) return { delivered: true, statusCode: status, error: null, retryAfterMs: null };
      const wait = status === 429 || status === 503 ? retryAfterMs(res.headers['retry-after']) : null;
      const error = status >= 300 && status < 400 ? `redirect (HTTP ${status}) not followed` : `HTTP ${status}`;
      return { delivered: false, statusCode: status, error, retryAfterMs: wait };
    } catch (err) {
      return { delivered: false, statusCode: null, error: describe(err as AxiosError), retryAfterMs: null };
    }
  }
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
