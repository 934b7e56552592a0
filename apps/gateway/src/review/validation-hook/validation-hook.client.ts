import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import axios, { isCancel, type AxiosError, type AxiosInstance } from 'axios';
import axiosRetry, { exponentialDelay, isNetworkError } from 'axios-retry';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { LONGEST_TIMER_MS } from '@app/http-headers';
import { guardedAgents } from '@app/url-safety';
import { readHookAnswer, VALIDATE_EVENT, type Findings, type ValidateRequest } from './hook-answer';

/** Why the customer's checks could not run (the page says it in words). */
export type HookFailure = 'timeout' | 'refused' | 'unreachable' | 'http_error' | 'garbage';

export type BatchOutcome = { ok: true; findings: Findings } | { ok: false; reason: HookFailure; detail: string };

/** The most an answer to one batch may weigh; a bigger one is garbage, and is not read further. */
const MAX_ANSWER_BYTES = 1_000_000;

const isTimeout = (err: AxiosError) => err.code === 'ECONNABORTED' || err.code === 'ETIMEDOUT';

/**
 * Sends one batch of mapped rows to a schema's `validation_url` and reads the answer: a JSON
 * POST signed per Standard Webhooks with the organization's webhook secret (the secret itself
 * is never sent, unlike the spec's run webhooks), through the agents that refuse non-public
 * addresses at connect time. Timeouts, network errors, 429 and 5xx are tried again with an
 * exponential back-off (axios-retry); redirects are not followed. Never throws: every failure
 * is an outcome the review can state.
 */
@Injectable()
export class ValidationHookClient {
  private readonly http: AxiosInstance;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const hook = config.validationHook;
    this.http = axios.create({
      ...guardedAgents(config.webhooks.allowedAddresses),
      timeout: hook.timeoutMs,
      maxRedirects: 0,
      maxContentLength: MAX_ANSWER_BYTES,
      responseType: 'text',
      // The raw text: readHookAnswer parses it, so an answer that is not JSON is reported, not thrown.
      transformResponse: [(data: unknown) => data],
      // The guard must see the real target, never an environment proxy.
      proxy: false,
    });
    axiosRetry(this.http, {
      retries: hook.attempts - 1,
      shouldResetTimeout: true,
      retryCondition: (err) =>
        !isCancel(err) && (isTimeout(err) || isNetworkError(err) || [429, 502, 503, 504].includes(err.response?.status ?? 0)),
      // The receiver's Retry-After is taken (the review's deadline ends a wait longer than it); a doubling past what a
      // timer can wait would fire at once.
      retryDelay: (retryCount, err) => Math.min(exponentialDelay(retryCount, err, hook.retryBaseMs / 2), LONGEST_TIMER_MS),
    });
  }

  async send(url: string, secret: string, request: ValidateRequest, fields: readonly string[], signal: AbortSignal): Promise<BatchOutcome> {
    const body = JSON.stringify(request);
    // One id per batch, the same on every retry: the receiver can tell a retry from a new batch.
    const id = `rv_${randomUUID()}`;
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'transformation-service-validation/1',
      'x-service-event': VALIDATE_EVENT,
      'x-service-id': request.run_id,
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, new Date(), body),
    };
    try {
      const res = await this.http.post<string>(url, body, { headers, signal });
      const answer = readHookAnswer(
        typeof res.data === 'string' ? res.data : '',
        request.rows.map((r) => r.row),
        fields,
      );
      return answer.ok ? answer : { ok: false, reason: 'garbage', detail: answer.problem };
    } catch (err) {
      return describe(err as AxiosError, signal);
    }
  }
}

/** Why a batch got no usable answer, without the URL's query, the headers or the secret. */
function describe(err: AxiosError, signal: AbortSignal): BatchOutcome {
  const failed = (reason: HookFailure, detail: string): BatchOutcome => ({ ok: false, reason, detail });
  if (signal.aborted || isCancel(err)) return failed('timeout', 'no answer within the time the review waits');
  if (isTimeout(err)) return failed('timeout', 'no answer within the timeout');
  if (/is not allowed/.test(err.message ?? '')) return failed('refused', 'refused: the address is not public');
  if (/maxContentLength/.test(err.message ?? '')) return failed('garbage', `the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
  const status = err.response?.status;
  if (status !== undefined) {
    return failed('http_error', status >= 300 && status < 400 ? `redirect (HTTP ${status}) not followed` : `HTTP ${status}`);
  }
  if (err.code === 'ECONNREFUSED') return failed('unreachable', 'connection refused');
  if (err.code === 'ENOTFOUND') return failed('unreachable', 'host not found');
  if (err.code === 'ECONNRESET') return failed('unreachable', 'connection reset');
  return failed('unreachable', err.code ? `network error (${err.code})` : 'network error');
}
