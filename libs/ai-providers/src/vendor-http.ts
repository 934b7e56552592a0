import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { Logger } from '@nestjs/common';
import axios, { type AxiosError, type AxiosInstance } from 'axios';
import axiosRetry, { isNetworkError } from 'axios-retry';
import type { AiCallConfig } from '@app/config';
import { backoffDelayMs, retryAfterMs } from '@app/http-headers';
import { aiVendorCalls } from '@app/metrics';
import { ProviderCallFailed } from './ai-vendor.port';

/** The agents every vendor call connects through: they refuse non-public addresses at connect time (@app/url-safety). */
export interface VendorAgents {
  httpAgent: HttpAgent;
  httpsAgent: HttpsAgent;
}

const logger = new Logger('AiVendorCalls');

const RETRYABLE_STATUS = (status: number) => status === 429 || status >= 500;
const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT']);

const isTimeout = (err: AxiosError) => TIMEOUT_CODES.has(err.code ?? '');

/**
 * An axios instance for one vendor: a response timeout per attempt, and bounded retries
 * (axios-retry) on 429, 5xx, timeouts and network errors, exponential with jitter, or the
 * vendor's Retry-After when it asks for a wait we are willing to make. It connects only
 * through the guarded `agents` (public addresses, or the configured AI_ALLOWED_ADDRESSES,
 * checked on the address the name resolves to), never through an environment proxy, and
 * never follows a redirect: the API key goes to the address that was checked, and only there.
 */
export function vendorHttp(
  vendor: 'openai' | 'anthropic',
  baseURL: string,
  headers: Record<string, string>,
  ai: AiCallConfig,
  agents: VendorAgents,
): AxiosInstance {
  const http = axios.create({
    baseURL,
    headers: { 'content-type': 'application/json', ...headers },
    timeout: ai.timeoutMs,
    httpAgent: agents.httpAgent,
    httpsAgent: agents.httpsAgent,
    // HTTP(S)_PROXY must not reroute a call: the guard must see the real target, and the key must not go to a proxy.
    proxy: false,
    maxRedirects: 0,
    // Vendor answers are JSON of bounded size; a runaway body is cut off.
    maxContentLength: 20 * 1024 * 1024,
    maxBodyLength: 40 * 1024 * 1024,
  });
  measureCalls(http, vendor);
  axiosRetry(http, {
    retries: ai.maxAttempts - 1,
    shouldResetTimeout: true,
    retryCondition: (err) => isTimeout(err) || isNetworkError(err) || RETRYABLE_STATUS(err.response?.status ?? 0),
    retryDelay: (retryCount, err) => vendorRetryDelayMs(retryCount, err.response?.headers?.['retry-after'], ai),
  });
  return http;
}

/**
 * The wait before a vendor call's retry: the vendor's Retry-After when it asks for at most AI_MAX_RETRY_AFTER_MS,
 * otherwise the backoff from AI_RETRY_BASE_MS. A longer Retry-After falls back to the backoff, as
 * docs/configuration.md says; axios-retry's own delay had taken it whatever its length (a vendor's
 * `Retry-After: 86400` held the run's step for a day).
 */
export function vendorRetryDelayMs(
  retryCount: number,
  retryAfterHeader: unknown,
  ai: Pick<AiCallConfig, 'retryBaseMs' | 'maxRetryAfterMs'>,
): number {
  const asked = retryAfterMs(retryAfterHeader);
  if (asked !== null && asked <= ai.maxRetryAfterMs) return asked;
  return backoffDelayMs(retryCount, ai.retryBaseMs);
}

const startedAt = new WeakMap<object, bigint>();

/** Each HTTP call to the vendor (each retry too) counted by outcome, with its latency (metrics, never the body or key). */
function measureCalls(http: AxiosInstance, provider: string): void {
  const observe = (config: object | undefined, outcome: string) => {
    const started = config && startedAt.get(config);
    if (started !== undefined) aiVendorCalls.observe({ provider, outcome }, Number(process.hrtime.bigint() - started) / 1e9);
  };
  http.interceptors.request.use((config) => {
    startedAt.set(config, process.hrtime.bigint());
    return config;
  });
  http.interceptors.response.use(
    (response) => {
      observe(response.config, 'ok');
      return response;
    },
    (err: AxiosError) => {
      const outcome = err.response ? `http_${err.response.status}` : isTimeout(err) ? 'timeout' : 'unreachable';
      observe(err.config, outcome);
      return Promise.reject(err);
    },
  );
}

/**
 * The one message for every call that got no HTTP answer and did not time out: refused by the
 * address guard, DNS failure, connection refused or reset, TLS failure. Customers see this
 * message (run errors, review notices); telling these apart would tell them what answers at
 * an address inside the network. The details go to the server log only.
 */
export const unreachableMessage = (vendor: string): string => `${vendor} could not be reached.`;

/** What went wrong with a vendor call, in words safe to log and to show (no secret, no body). */
export function describeFailure(vendor: string, err: unknown): ProviderCallFailed {
  if (err instanceof ProviderCallFailed) return err;
  const e = err as AxiosError;
  if (e?.isAxiosError) {
    const status = e.response?.status ?? null;
    if (status !== null) {
      const kind =
        status === 401 || status === 403
          ? 'refused the credentials'
          : status === 429
            ? 'is rate limiting requests'
            : status >= 500
              ? 'had a server error'
              : status >= 300 && status < 400
                ? 'answered with a redirect'
                : 'refused the request';
      return new ProviderCallFailed(`${vendor} ${kind} (HTTP ${status}).`, RETRYABLE_STATUS(status), status);
    }
    if (isTimeout(e)) return new ProviderCallFailed(`${vendor} did not answer in time.`, true);
  }
  // No answer. Also errors thrown before axios wraps them: the guard refuses a literal address
  // synchronously. The cause (code; for the guard, the refused address) is for the operator only.
  const cause = err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? 'no code'}: ${err.message}` : String(err);
  logger.warn(`${vendor} could not be reached: ${cause}`);
  return new ProviderCallFailed(unreachableMessage(vendor), true);
}
