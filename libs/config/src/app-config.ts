import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { loadSecretsKeyring, readOrCreateKeyFile, type SecretsKeyring } from './secrets-keyring';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface LogSettings {
  /** LOG_LEVEL: fatal, error, warn, info (default), debug, trace or silent. */
  level: (typeof LOG_LEVELS)[number];
  /** LOG_FORMAT: json (one object per line) or pretty (for a person at a terminal); default pretty on a terminal, else json. */
  format: 'json' | 'pretty';
  /**
   * LOG_SUCCESS_SAMPLE_RATE: the share (0 to 1) of successful, fast GET and HEAD requests whose access line is
   * written; every other request (an error, a slow one, any write) is always logged (libs/logging/src/access-log.ts).
   */
  successSampleRate: number;
  /**
   * LOG_REPEAT_WINDOW_MS: of the access lines of fast successful GET and HEAD requests alike (same route, status and
   * caller), one is written per window and the rest counted into the next one written (`repeats`); 0 writes them all.
   */
  repeatWindowMs: number;
  /** LOG_SLOW_REQUEST_MS: a request that took at least this long is always logged, at warn level. */
  slowRequestMs: number;
}

export function logSettings(env: NodeJS.ProcessEnv, isTerminal = Boolean(process.stdout.isTTY)): LogSettings {
  const level = (env.LOG_LEVEL || 'info').toLowerCase() as LogSettings['level'];
  if (!LOG_LEVELS.includes(level)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (it is "${env.LOG_LEVEL}").`);
  const format = env.LOG_FORMAT || (isTerminal ? 'pretty' : 'json');
  if (format !== 'json' && format !== 'pretty') throw new Error(`LOG_FORMAT must be json or pretty (it is "${env.LOG_FORMAT}").`);
  const rate =
    env.LOG_SUCCESS_SAMPLE_RATE === undefined || env.LOG_SUCCESS_SAMPLE_RATE === ''
      ? DEFAULT_SUCCESS_SAMPLE_RATE
      : Number(env.LOG_SUCCESS_SAMPLE_RATE);
  if (!(rate >= 0 && rate <= 1))
    throw new Error(`LOG_SUCCESS_SAMPLE_RATE must be a number from 0 to 1 (it is "${env.LOG_SUCCESS_SAMPLE_RATE}").`);
  return {
    level,
    format,
    successSampleRate: rate,
    repeatWindowMs: millis(env, 'LOG_REPEAT_WINDOW_MS', DEFAULT_REPEAT_WINDOW_MS),
    slowRequestMs: millis(env, 'LOG_SLOW_REQUEST_MS', 500),
  };
}

/** Successful GETs logged by default: polling clients ask thousands of times a second; errors and slow requests are all kept (docs/decisions.md). */
const DEFAULT_SUCCESS_SAMPLE_RATE = 1;

/**
 * A client polling a run writes one access line a second, which says how many requests it stands for: a line a request
 * cost about a tenth of the run GET's CPU (docs/decisions.md, "The cost of one request").
 */
const DEFAULT_REPEAT_WINDOW_MS = 1000;

/** Everything configurable, read once from the environment (docs/configuration.md lists each variable). */
export interface AppConfig {
  port: number;
  host: string;
  dataDir: string;
  publicBaseUrl: string;
  /** null: the admin API refuses every call. */
  adminToken: string | null;
  production: boolean;
  signingSecret: Buffer;
  uploadTtlSeconds: number;
  reviewTtlSeconds: number;
  outputRetentionSeconds: number;
  downloadUrlTtlSeconds: number;
  maxUploadBytes: number;
  /** An output may be this many times its source's size, and always as large as the largest upload (apps/output/src/output-limit.ts). */
  maxOutputRatio: number;
  maxJsonBodyBytes: number;
  rateLimitPerMinute: number;
  /** LOG_LEVEL and LOG_FORMAT (libs/logging). */
  log: LogSettings;
  /** The HTTP edge: listeners, timeouts, in-flight limits, failed-authentication throttle (docs/security.md, "HTTP edge"). */
  http: HttpEdgeConfig;
  eventStorePollMs: number;
  /** Where blobs live: the local directory under DATA_DIR (default) or an S3 bucket. */
  blobStore:
    | { kind: 'local' }
    | {
        kind: 's3';
        bucket: string;
        region: string;
        endpoint?: string;
        publicEndpoint?: string;
        accessKeyId?: string;
        secretAccessKey?: string;
      };
  /** How often direct-to-bucket uploads are looked for (S3 blob store). */
  uploadPollMs: number;
  /** How often the sweeper fails runs whose upload never came and deletes files past their retention. */
  sweepIntervalMs: number;
  /** Attempts at a run event whose handler fails (not an outage) before it becomes a dead letter. */
  handlerMaxAttempts: number;
  /** How often consumer groups look for dead letters an operator asked to replay. */
  deadLetterReplayPollMs: number;
  /** Long steps run under a claim (a lease) outside the bus handler: its lifetime, renewal period and how many run at once per process. */
  stepClaims: { ttlMs: number; renewMs: number; concurrency: number };
  /** The event store: one SQLite file under DATA_DIR (default) or EventStoreDB/KurrentDB. */
  eventStore: { kind: 'sqlite' } | { kind: 'eventstoredb'; url: string };
  /** The bus between services: in this process (default) or Kafka. */
  bus: { kind: 'in-process' } | KafkaSettings;
  /** Run documents, checkpoints and the directory: SQLite under DATA_DIR (default) or MongoDB. */
  readModel: { kind: 'sqlite' } | { kind: 'mongo'; url: string };
  defaultPerPage: number;
  maxPerPage: number;
  ai: AiCallConfig;
  webhooks: WebhookConfig;
  /** The customer's validation hook a schema may name (`validation_url`; docs/validation-hook.md). */
  validationHook: ValidationHookConfig;
  /** The customer console's sessions, invitations and sign-in throttle (docs/console.md). */
  console: ConsoleConfig;
  /** Keys that encrypt provider API keys and webhook secrets at rest (docs/security.md). */
  secrets: SecretsKeyring;
  /**
   * Worker threads for the CPU-heavy steps (reading a source, counting problems, writing
   * output), so the event loop keeps answering. 0 runs them on the event loop.
   */
  cpuWork: { threads: number; heapMb: number; youngMb: number };
  /** Limits enforced while a source file streams (docs/files.md). */
  tableLimits: {
    maxRowChars: number;
    maxFieldChars: number;
    maxColumns: number;
    maxRows: number;
    maxUnpackedBytes: number;
    maxCompressionRatio: number;
  };
}

/** How webhooks are delivered (docs/webhooks.md). */
export interface WebhookConfig {
  /** Response timeout of one attempt (the spec's 15 s). */
  timeoutMs: number;
  /** Attempts per delivery (the spec's 3). */
  maxAttempts: number;
  /** Delay before the 2nd, 3rd, … attempt. */
  retryDelaysMs: number[];
  maxRetryAfterMs: number;
  /** How often the notifier looks for due attempts. */
  pollMs: number;
  /** Deliveries one notifier process makes at once (slow endpoints never hold up the rest beyond this). */
  concurrency: number;
  /**
   * Addresses deliveries may reach although they are not public (exact IPs, e.g. a
   * test's loopback receiver). Empty: only public unicast addresses.
   */
  allowedAddresses: string[];
}

/**
 * How the review calls a schema's `validation_url`: the first `maxRows` rows of a run up front
 * (later rows when a page shows them), in batches of `batchRows`, each with a timeout of
 * `timeoutMs` and `attempts` tries, all of it within `deadlineMs` (the review never waits longer
 * for the customer's checks).
 */
export interface ValidationHookConfig {
  timeoutMs: number;
  attempts: number;
  /** Delay before the first retry; it doubles after each (with jitter). */
  retryBaseMs: number;
  batchRows: number;
  maxRows: number;
  deadlineMs: number;
}

/** Delays in milliseconds, each at most LONGEST_DELAY_MS. */
const intList = (env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] => {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((part) => {
    const n = Number(part.trim());
    if (!Number.isSafeInteger(n) || n < 0 || n > LONGEST_DELAY_MS)
      throw new Error(`${name} must be a comma-separated list of integers from 0 to ${LONGEST_DELAY_MS} (24.8 days), got "${raw}"`);
    return n;
  });
};

/** How the service calls AI vendors (docs/ai-providers.md). */
export interface AiCallConfig {
  /** Response timeout of one attempt. */
  timeoutMs: number;
  /** Attempts per call, the first included; 429, 5xx, timeouts and network errors are retried. */
  maxAttempts: number;
  /** First backoff delay; doubled each retry, with jitter. A Retry-After within maxRetryAfterMs is honoured instead. */
  retryBaseMs: number;
  maxRetryAfterMs: number;
  /** Largest answer the service accepts to generate (vendor max_tokens). */
  maxOutputTokens: number;
  /** Images above this size are not sent to a vendor; the run fails with a clear error. */
  maxImageBytes: number;
  /**
   * Addresses vendor calls may reach although they are not public (exact IPs, e.g. a test's
   * fake vendor on loopback). Empty: only public unicast addresses.
   */
  allowedAddresses: string[];
}

/**
 * An integer setting from `min` to `max`, or `fallback` when unset or empty. A value out of that range is refused, naming
 * the variable, as any other bad value is: no setting is ever clamped in silence (docs/configuration.md). Every setting
 * names its `max`: one without (`MAX_UPLOAD_BYTES=1e300`, a thread count of 1e9) used to start and fail later, or not at all.
 */
const intIn = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, why = ''): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
  throw new Error(`${name} must be an integer from ${min} to ${max}${why}, got "${raw}"`);
};

/**
 * The longest lifetime or window in seconds (10 years). A run's expiry, retention or link is now plus one of them, written
 * as an RFC 3339 date-time: past year 9999 a date has no such form (4e11 seconds wrote `+014702-…`), and past
 * 8.64e15 ms none at all (toISOString throws). No operator keeps a review open or a file for longer.
 */
const LONGEST_DURATION_SECONDS = 10 * 365 * 24 * 3600;

/**
 * The longest delay in milliseconds (2^31 - 1, 24.8 days): Node's timers wait no longer, and a longer delay fires at
 * once (a poll or a timeout of 0). The settings in milliseconds are polls, timeouts and retry delays.
 */
const LONGEST_DELAY_MS = 2 ** 31 - 1;

/** A duration setting in seconds, from `min` to 10 years. */
const seconds = (env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number =>
  intIn(env, name, fallback, min, LONGEST_DURATION_SECONDS, ' (at most 10 years)');

/** A duration setting in milliseconds, from `min` to 24.8 days. */
const millis = (env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number =>
  intIn(env, name, fallback, min, LONGEST_DELAY_MS, ' (at most 24.8 days, the longest a timer waits)');

/*
 * The largest values of the settings that are no duration (since 2026-12-06; docs/decisions.md, "The largest values").
 * Each is far past what a deployment asks for, and below what the code using it can do.
 */

/**
 * A file's size or a sum of bytes (MAX_UPLOAD_BYTES, MAX_XLSX_UNPACKED_BYTES, HTTP_MAX_JSON_BYTES_IN_FLIGHT): 1 TiB, more
 * than a disk or the memory of a machine gives one process, and 10,000 times the default upload.
 */
const LARGEST_BYTES = 2 ** 40;

/**
 * A JSON body (MAX_JSON_BODY_BYTES), read into one string before it is parsed (create-http-app.ts): V8's longest string
 * is 2^29 - 24 characters (512 MiB), and a longer body would fail as it is read. 256 MiB leaves room for the parse.
 */
const LARGEST_JSON_BODY_BYTES = 256 * 1024 * 1024;

/**
 * An image sent to an AI vendor (AI_MAX_IMAGE_BYTES): it goes base64-encoded (4 characters for 3 bytes) in the request's
 * JSON, and vendor-http.ts refuses a request body over 40 MiB (maxBodyLength): 30 MiB of image would fill it alone,
 * and every such run would fail at its call. 24 MiB (a 32 MiB body) leaves 8 MiB for the prompt.
 */
const LARGEST_AI_IMAGE_BYTES = 24 * 1024 * 1024;

/**
 * A row or a field in characters (MAX_ROW_CHARS, MAX_FIELD_CHARS): 2^28, half V8's longest string (2^29 - 24). The row in
 * progress is one string, joined to the next piece read before it is measured (row-scanner.ts), so a limit near the
 * longest string would fail with "Invalid string length" instead of the file's too-long-row problem.
 */
const LONGEST_ROW_CHARS = 2 ** 28;

/**
 * Rows of a file (MAX_ROWS): 2^32 - 1. Rows are tallied by width in Uint32Arrays (row-widths.ts), whose counts wrap past it.
 */
const MOST_ROWS = 2 ** 32 - 1;

/**
 * Columns of a row (MAX_COLUMNS): 65,536, four times the widest sheet Excel writes (16,384). Rows are tallied by width in
 * typed arrays as wide as the widest row seen, up to one past the limit (row-widths.ts): 12 bytes a width, 24 GB at 1e9.
 */
const MOST_COLUMNS = 65_536;

/**
 * MAX_XLSX_COMPRESSION_RATIO: 1032, deflate's highest ratio (zlib's FAQ), and a workbook's parts are stored or deflated
 * (xlsx-package.ts refuses any other method). At 1032 no part is refused for its ratio; a larger limit checks nothing more.
 */
const HIGHEST_XLSX_COMPRESSION_RATIO = 1032;

/**
 * MAX_OUTPUT_RATIO: 10,000, as much as a fix can lengthen a value of one character: a fix writes at most 10,000
 * characters (apps/output/src/output-limit.ts). Past it the output limit stops nothing a review can do.
 */
const HIGHEST_OUTPUT_RATIO = 10_000;

/**
 * Attempts at anything (HANDLER_, AI_, WEBHOOK_MAX_ATTEMPTS, VALIDATION_HOOK_ATTEMPTS): 20. The AI and validation-hook
 * calls wait twice as long before each retry (axios-retry's exponentialDelay, from half the base delay): from
 * AI_RETRY_BASE_MS's default, the 19th retry waits 3 days and the 22nd would pass 2^31 - 1 ms, which a timer fires at
 * once, so the retries that followed would hammer the vendor. A delivery or a handler failing 20 times fails for good.
 */
const MOST_ATTEMPTS = 20;

/**
 * Work one process does at once (STEP_CONCURRENCY, WEBHOOK_CONCURRENCY): 10,000. Each is a claim renewed on a timer or an
 * outgoing connection on one event loop; the defaults are 8 and 50.
 */
const MOST_AT_ONCE = 10_000;

/**
 * CPU_WORKER_THREADS: 64. Each thread has a heap of its own (CPU_WORKER_HEAP_MB and CPU_WORKER_YOUNG_MB) in a process
 * sized for 256 MB (docs/files.md, "Memory"), and a file's work is split in two at most; the default is 2.
 */
const MOST_CPU_THREADS = 64;

/**
 * CPU_WORKER_HEAP_MB and CPU_WORKER_YOUNG_MB: 65,536 (64 GiB) for one thread, past any machine's share for it. V8 takes
 * the value in bytes as an integer: 1e300 became V8's default limit (4 GB here) in silence.
 */
const LARGEST_THREAD_HEAP_MB = 65_536;

/**
 * Requests (RATE_LIMIT_PER_MINUTE) or failures (AUTH_FAILURE_LIMIT, CONSOLE_SIGNIN_*_LIMIT) allowed per window:
 * 1,000,000,000, 16 million a second for a minute, more than a process answers (the benches use 100,000,000 as "no limit").
 */
const MOST_PER_WINDOW = 1_000_000_000;

/**
 * HTTP_MAX_CONNECTIONS: 1,048,576, Linux's default fs.nr_open, the most file descriptors a process may hold (0: no limit).
 */
const MOST_CONNECTIONS = 2 ** 20;

/**
 * HTTP_UPLOAD_MIN_BYTES_PER_SECOND: 1 GiB a second, about all of a 10 Gbit/s link. A least rate past what a link
 * carries would close every upload.
 */
const HIGHEST_UPLOAD_MIN_BYTES_PER_SECOND = 2 ** 30;

/**
 * AI_MAX_OUTPUT_TOKENS: 1,000,000, past any vendor's max_tokens (128,000 at most today). An answer is read up to 20 MiB
 * (vendor-http.ts, maxContentLength), some 5 million tokens.
 */
const MOST_OUTPUT_TOKENS = 1_000_000;

/**
 * VALIDATION_HOOK_MAX_ROWS: 1,000,000. The rows sent up front are read into memory together before they are sent
 * (customer-checks.service.ts); the default is 10,000.
 */
const MOST_HOOK_ROWS = 1_000_000;

/**
 * KAFKA_PARTITIONS: 10,000. Each partition is a log on every replica broker and a lane the consumers follow, and Kafka
 * advises a few thousand partitions a broker; the default is 6.
 */
const MOST_KAFKA_PARTITIONS = 10_000;

/** KAFKA_REPLICATION_FACTOR: 32767. kafkajs writes it as a 16-bit integer (CreateTopics), and throws past it when a topic is made. */
const MOST_KAFKA_REPLICAS = 2 ** 15 - 1;

/** A TRUST_PROXY hop count: 100. A request crosses a few proxies (a CDN, a load balancer, an ingress); `true` trusts them all. */
const MOST_PROXY_HOPS = 100;

const HIGHEST_PORT = 65535;

/**
 * A TCP port setting, or `fallback` when unset or empty; `zero` says what 0 means where it is taken (any free port, none).
 * Anything else stops the start, naming the variable: a port past 65535 used to pass, and the listener's RangeError
 * ended the process later, after the stores were open and the consumers had started.
 */
function portSetting<T extends number | null>(env: NodeJS.ProcessEnv, name: string, fallback: T, zero?: string): number | T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > HIGHEST_PORT || (n === 0 && zero === undefined))
    throw new Error(`${name} must be a port number from 1 to ${HIGHEST_PORT}${zero === undefined ? '' : ` (0: ${zero})`}, got "${raw}"`);
  return n;
}

/**
 * The port a worker app answers operators' probes on (HEALTH_PORT; null: none, unset or 0). Read by the workers only, before
 * anything starts: a port that cannot be one stops the start, where it used to leave the worker without probes unsaid.
 */
export function healthPort(env: NodeJS.ProcessEnv): number | null {
  // 0 has always meant no listener (scripts/check-entry-points.js starts the workers so).
  return portSetting(env, 'HEALTH_PORT', null, 'none') || null;
}

// ---- HTTP edge (docs/security.md, "HTTP edge"; the rows in docs/configuration.md) ----

export interface HttpEdgeConfig {
  /** Most open connections per listener (server.maxConnections); 0: no limit. */
  maxConnections: number;
  /** Time a client has to send a request's headers (server.headersTimeout). */
  headersTimeoutMs: number;
  /** Time a client has to send a whole JSON body once its headers are in; then 408 and the connection is closed. */
  bodyTimeoutMs: number;
  /** Uploads to the signed /files URLs have no deadline, only this longest pause in their body. */
  uploadIdleTimeoutMs: number;
  /** And this least rate: an upload that receives fewer bytes than this a second over a whole uploadRateWindowMs is closed. 0: off. */
  uploadMinBytesPerSecond: number;
  uploadRateWindowMs: number;
  /** An idle keep-alive connection is closed after this long (server.keepAliveTimeout). */
  keepAliveTimeoutMs: number;
  /** How long a stop lets the requests in flight finish before it closes their connections. */
  drainMs: number;
  /** JSON body bytes all requests together may have in flight; a request past it gets 503. */
  maxJsonBytesInFlight: number;
  /** Failed authentications (wrong admin token, API key or URL signature) one client address may make per window; then 429. 0: off. */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  /** Peers whose X-Forwarded-For names the client: all (true), none (false), a hop count, or addresses, CIDRs and loopback/linklocal/uniquelocal. */
  trustProxy: boolean | number | string[];
  /** The admin API's own listener (ADMIN_HOST/ADMIN_PORT); null: /admin is served on the public one. */
  adminListener: { host: string; port: number } | null;
}

/** The names of address ranges TRUST_PROXY takes beside addresses and CIDRs (proxy-addr's). */
export const TRUST_PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'] as const;

/**
 * TRUST_PROXY, each entry checked here as the process starts (before DATA_DIR is touched), not
 * when the HTTP edge first reads it: a typo in a proxy's address would otherwise be found only
 * after the stores were opened.
 */
function trustProxySetting(raw: string | undefined): HttpEdgeConfig['trustProxy'] {
  const value = (raw ?? 'loopback').trim();
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^\d+$/.test(value)) return intIn({ TRUST_PROXY: value }, 'TRUST_PROXY', 0, 0, MOST_PROXY_HOPS, ' as a hop count');
  const entries = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const named = (TRUST_PROXY_RANGES as readonly string[]).includes(entry.toLowerCase());
    if (!named && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry))
      throw new Error(
        `TRUST_PROXY must be true, false, a hop count, or addresses, CIDRs and ${TRUST_PROXY_RANGES.join(', ')}, got "${entry}"`,
      );
  }
  return entries;
}

/** A claim must outlive a few renewals: a slow store answer must not let another replica take a step that is still running. */
function stepClaimSettings(env: NodeJS.ProcessEnv): AppConfig['stepClaims'] {
  const ttlMs = millis(env, 'STEP_CLAIM_TTL_MS', 30_000, 1000);
  const longestRenew = Math.floor(ttlMs / 3);
  return {
    ttlMs,
    // Unset, it follows a short TTL down (a default, not a correction: a value given is taken or refused).
    renewMs: intIn(
      env,
      'STEP_CLAIM_RENEW_MS',
      Math.min(10_000, longestRenew),
      100,
      longestRenew,
      ' (at most a third of STEP_CLAIM_TTL_MS)',
    ),
    concurrency: intIn(env, 'STEP_CONCURRENCY', 8, 1, MOST_AT_ONCE),
  };
}

function httpEdgeSettings(env: NodeJS.ProcessEnv, port: number): HttpEdgeConfig {
  const adminPort = portSetting(env, 'ADMIN_PORT', null);
  if (env.ADMIN_HOST && adminPort === null) throw new Error('ADMIN_HOST needs ADMIN_PORT (the admin listener is off without a port).');
  if (adminPort !== null && adminPort === port) throw new Error(`ADMIN_PORT must be a port other than PORT (${port}).`);
  return {
    maxConnections: intIn(env, 'HTTP_MAX_CONNECTIONS', 1024, 0, MOST_CONNECTIONS),
    headersTimeoutMs: millis(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 1),
    bodyTimeoutMs: millis(env, 'HTTP_BODY_TIMEOUT_MS', 30_000, 1),
    // Below a minute: a stalled upload is cut within 60 s of its last byte, whatever else happens.
    uploadIdleTimeoutMs: millis(env, 'HTTP_UPLOAD_IDLE_TIMEOUT_MS', 45_000, 1),
    // A byte every 44 s passes the idle rule; this one bounds how long a trickle holds its connection and its run's upload.
    uploadMinBytesPerSecond: intIn(env, 'HTTP_UPLOAD_MIN_BYTES_PER_SECOND', 1024, 0, HIGHEST_UPLOAD_MIN_BYTES_PER_SECOND),
    // At most an hour: a timer's delay past 2^31 - 1 ms would fire at once, and cut every upload.
    uploadRateWindowMs: intIn(env, 'HTTP_UPLOAD_RATE_WINDOW_MS', 60_000, 100, 3_600_000),
    keepAliveTimeoutMs: millis(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1),
    // Under Kubernetes' 30 s grace, with time left for the pipeline's own stop.
    drainMs: intIn(env, 'HTTP_DRAIN_MS', 10_000, 0, 3_600_000),
    maxJsonBytesInFlight: intIn(env, 'HTTP_MAX_JSON_BYTES_IN_FLIGHT', 16 * 1024 * 1024, 1, LARGEST_BYTES),
    authFailureLimit: intIn(env, 'AUTH_FAILURE_LIMIT', 30, 0, MOST_PER_WINDOW),
    authFailureWindowSeconds: seconds(env, 'AUTH_FAILURE_WINDOW_SECONDS', 60, 1),
    trustProxy: trustProxySetting(env.TRUST_PROXY),
    adminListener: adminPort === null ? null : { host: env.ADMIN_HOST || '127.0.0.1', port: adminPort },
  };
}

/**
 * The secret that signs review, upload and download URLs. From SIGNING_SECRET, or made
 * once and kept in DATA_DIR so that URLs stay valid across restarts.
 */
export interface KafkaSettings {
  kind: 'kafka';
  brokers: string[];
  clientId: string;
  partitions: number;
  replicationFactor: number;
  /** Topic where the bucket publishes object-created notifications (MinIO, S3 via a bridge); null: poll only. */
  bucketEventsTopic: string | null;
  /** How long topics we create keep records (ms; -1: for ever). */
  retentionMs: number;
  /** TLS to the brokers (KAFKA_SSL=true; KAFKA_SSL_CA_FILE for a private CA). */
  ssl: false | { caFile: string | null };
  /** SASL authentication (KAFKA_SASL_MECHANISM plain, scram-sha-256 or scram-sha-512). */
  sasl: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | null;
}

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

function kafkaSecurity(env: NodeJS.ProcessEnv): Pick<KafkaSettings, 'ssl' | 'sasl'> {
  const ssl = env.KAFKA_SSL === 'true' ? { caFile: env.KAFKA_SSL_CA_FILE || null } : false;
  if (env.KAFKA_SSL && !['true', 'false'].includes(env.KAFKA_SSL))
    throw new Error(`KAFKA_SSL must be true or false, not ${env.KAFKA_SSL}.`);
  const mechanism = env.KAFKA_SASL_MECHANISM?.toLowerCase();
  if (!mechanism) return { ssl, sasl: null };
  if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
    throw new Error(`KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')}, not ${env.KAFKA_SASL_MECHANISM}.`);
  }
  const because = `KAFKA_SASL_MECHANISM=${mechanism}`;
  return {
    ssl,
    sasl: {
      mechanism: mechanism as (typeof SASL_MECHANISMS)[number],
      username: needs(env, 'KAFKA_SASL_USERNAME', because),
      password: needs(env, 'KAFKA_SASL_PASSWORD', because),
    },
  };
}

const needs = (env: NodeJS.ProcessEnv, name: string, because: string): string => {
  const v = env[name];
  if (!v) throw new Error(`${because} needs ${name}.`);
  return v;
};

function adapterSettings(env: NodeJS.ProcessEnv): Pick<AppConfig, 'eventStore' | 'bus' | 'readModel'> {
  const store = env.EVENT_STORE || 'sqlite';
  const bus = env.BUS || 'in-process';
  const readModel = env.READ_MODEL || 'sqlite';
  if (!['sqlite', 'eventstoredb'].includes(store)) throw new Error(`EVENT_STORE must be sqlite or eventstoredb, not ${store}.`);
  if (!['in-process', 'kafka'].includes(bus)) throw new Error(`BUS must be in-process or kafka, not ${bus}.`);
  if (!['sqlite', 'mongo'].includes(readModel)) throw new Error(`READ_MODEL must be sqlite or mongo, not ${readModel}.`);
  return {
    eventStore:
      store === 'eventstoredb'
        ? { kind: 'eventstoredb', url: needs(env, 'EVENTSTORE_URL', 'EVENT_STORE=eventstoredb') }
        : { kind: 'sqlite' },
    bus:
      bus === 'kafka'
        ? {
            kind: 'kafka',
            brokers: needs(env, 'KAFKA_BROKERS', 'BUS=kafka')
              .split(',')
              .map((b) => b.trim())
              .filter(Boolean),
            clientId: env.KAFKA_CLIENT_ID || 'transformation-service',
            partitions: intIn(env, 'KAFKA_PARTITIONS', 6, 1, MOST_KAFKA_PARTITIONS),
            replicationFactor: intIn(env, 'KAFKA_REPLICATION_FACTOR', 1, 1, MOST_KAFKA_REPLICAS),
            bucketEventsTopic: env.BUCKET_EVENTS_TOPIC || null,
            // Kafka's own "for ever" is -1 (retention.ms), as the dead-letter topic gets it.
            retentionMs:
              env.KAFKA_RETENTION_MS?.trim() === '-1'
                ? -1
                : intIn(
                    env,
                    'KAFKA_RETENTION_MS',
                    30 * 24 * 3600 * 1000,
                    0,
                    LONGEST_DURATION_SECONDS * 1000,
                    ' (at most 10 years, or -1: for ever)',
                  ),
            ...kafkaSecurity(env),
          }
        : { kind: 'in-process' },
    readModel: readModel === 'mongo' ? { kind: 'mongo', url: needs(env, 'MONGO_URL', 'READ_MODEL=mongo') } : { kind: 'sqlite' },
  };
}

/** The longest life S3 gives a pre-signed URL (SigV4's X-Amz-Expires): 7 days. */
const S3_LONGEST_URL_SECONDS = 7 * 24 * 3600;

function blobStoreSettings(env: NodeJS.ProcessEnv): AppConfig['blobStore'] {
  const kind = env.BLOB_STORE || 'local';
  if (kind === 'local') return { kind: 'local' };
  if (kind !== 's3') throw new Error(`BLOB_STORE must be local or s3, not ${kind}.`);
  if (!env.S3_BUCKET) throw new Error('BLOB_STORE=s3 needs S3_BUCKET.');
  // S3 refuses a pre-signed URL living longer than 7 days, and an upload's expiry is rounded up to a whole second.
  for (const name of ['UPLOAD_TTL_SECONDS', 'DOWNLOAD_URL_TTL_SECONDS'])
    if (seconds(env, name, 0) > S3_LONGEST_URL_SECONDS - 1)
      throw new Error(
        `${name} must be at most ${S3_LONGEST_URL_SECONDS - 1} with BLOB_STORE=s3 (S3's pre-signed URLs live 7 days at most).`,
      );
  return {
    kind: 's3',
    bucket: env.S3_BUCKET,
    region: env.S3_REGION || 'us-east-1',
    endpoint: env.S3_ENDPOINT || undefined,
    publicEndpoint: env.S3_PUBLIC_ENDPOINT || undefined,
    accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
  };
}

function loadSigningSecret(env: NodeJS.ProcessEnv, dataDir: string): Buffer {
  if (env.SIGNING_SECRET) return Buffer.from(env.SIGNING_SECRET, 'utf8');
  // Created once, mode 0600, race-free when several processes share DATA_DIR.
  return Buffer.from(
    readOrCreateKeyFile(join(dataDir, 'signing.key'), () => randomBytes(32).toString('base64')),
    'base64',
  );
}

/** A comma-separated list of exact addresses (the address guards' allow-lists). */
const addressList = (env: NodeJS.ProcessEnv, name: string): string[] =>
  (env[name] ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

export interface ConsoleConfig {
  /** CONSOLE_SESSION_IDLE_SECONDS: a session ends after this long without a call. */
  sessionIdleSeconds: number;
  /** CONSOLE_INVITATION_TTL_SECONDS: how long an invitation link can be used. */
  invitationTtlSeconds: number;
  /** Failed sign-ins allowed per e-mail (CONSOLE_SIGNIN_ACCOUNT_LIMIT) and per client address (CONSOLE_SIGNIN_ADDRESS_LIMIT) per window. */
  signInAccountLimit: number;
  signInAddressLimit: number;
  /** CONSOLE_SIGNIN_WINDOW_SECONDS: the throttle's window, from the first failure. */
  signInWindowSeconds: number;
}

const consoleSettings = (env: NodeJS.ProcessEnv): ConsoleConfig => ({
  sessionIdleSeconds: seconds(env, 'CONSOLE_SESSION_IDLE_SECONDS', 8 * 3600, 1),
  invitationTtlSeconds: seconds(env, 'CONSOLE_INVITATION_TTL_SECONDS', 7 * 24 * 3600, 1),
  signInAccountLimit: intIn(env, 'CONSOLE_SIGNIN_ACCOUNT_LIMIT', 5, 1, MOST_PER_WINDOW),
  signInAddressLimit: intIn(env, 'CONSOLE_SIGNIN_ADDRESS_LIMIT', 20, 1, MOST_PER_WINDOW),
  signInWindowSeconds: seconds(env, 'CONSOLE_SIGNIN_WINDOW_SECONDS', 900, 1),
});

/** The shortest ADMIN_TOKEN taken: a guessable token opens every organization, so it is refused, not warned of. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

function adminTokenOf(env: NodeJS.ProcessEnv): string | null {
  const token = env.ADMIN_TOKEN || null;
  if (token !== null && token.length < MIN_ADMIN_TOKEN_LENGTH)
    throw new Error(
      `ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long (it has ${token.length}); generate one with \`openssl rand -hex 32\`.`,
    );
  // Blanks are no secret, and blanks around one are a copy's mistake that no bearer header would match.
  if (token !== null && (token.trim() === '' || token.trim() !== token))
    throw new Error(`ADMIN_TOKEN must not be blank nor begin or end with white space; generate one with \`openssl rand -hex 32\`.`);
  return token;
}

/**
 * The shortest SIGNING_SECRET taken: it is the HMAC key of every review, upload and download URL, and one signed URL is
 * enough to try short secrets offline, then sign URLs to any run. As long as ADMIN_TOKEN's; the generated one is 32 bytes.
 */
const MIN_SIGNING_SECRET_LENGTH = 32;

function checkSigningSecret(env: NodeJS.ProcessEnv): void {
  const secret = env.SIGNING_SECRET;
  if (secret && secret.length < MIN_SIGNING_SECRET_LENGTH)
    throw new Error(
      `SIGNING_SECRET must be at least ${MIN_SIGNING_SECRET_LENGTH} characters long (it has ${secret.length}); generate one with \`openssl rand -base64 32\`.`,
    );
}

/**
 * PUBLIC_BASE_URL (default http://localhost:PORT), without its trailing slashes: every URL handed out is it followed by a
 * path (`${publicBaseUrl}/review/…?signature=…`), so it must be an absolute http(s) URL with no query, fragment or
 * credentials. Scheme and host are written as a URL parser writes them (lower case), as the HSTS and cookie checks read it.
 */
function publicBaseUrlOf(env: NodeJS.ProcessEnv, port: number): string {
  const raw = env.PUBLIC_BASE_URL || `http://localhost:${port}`;
  const refused = (why: string) =>
    new Error(`PUBLIC_BASE_URL must be an absolute http or https URL such as https://transform.example.com (${why}), got "${raw}"`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused(`its scheme is ${url.protocol.slice(0, -1)}`);
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) throw refused('no query or fragment');
  if (url.username || url.password) throw refused('no user name or password');
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * The exporters the tracing setup knows (libs/tracing; OpenTelemetry's SDK names them so, in lower case). Another name
 * turned tracing on with no exporter: spans were made and went nowhere, unsaid. `null` is dropped by the SDK too.
 */
const TRACES_EXPORTERS = ['otlp', 'zipkin', 'console', 'none', 'null'];

function checkTracesExporter(env: NodeJS.ProcessEnv): void {
  const raw = env.OTEL_TRACES_EXPORTER ?? '';
  const unknown = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '' && !TRACES_EXPORTERS.includes(s));
  if (unknown.length > 0)
    throw new Error(`OTEL_TRACES_EXPORTER must name otlp, zipkin, console or none (comma-separated, lower case), got "${raw}"`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  // Every setting is read and checked first: a refused start writes nothing. Only then may the keys be made in DATA_DIR.
  const settings = checkedSettings(env);
  const secrets = loadSecretsKeyring(env, settings.dataDir, settings.production);
  return { ...settings, signingSecret: loadSigningSecret(env, settings.dataDir), secrets };
}

/** Every setting but the keys kept in DATA_DIR: reads nothing but `env`, writes nothing. */
function checkedSettings(env: NodeJS.ProcessEnv): Omit<AppConfig, 'signingSecret' | 'secrets'> {
  const adminToken = adminTokenOf(env);
  checkSigningSecret(env);
  checkTracesExporter(env);
  const port = portSetting(env, 'PORT', 3000, 'any free port');
  return {
    port,
    host: env.HOST || '0.0.0.0',
    dataDir: resolve(env.DATA_DIR || './data'),
    publicBaseUrl: publicBaseUrlOf(env, port),
    adminToken,
    production: env.NODE_ENV === 'production',
    uploadTtlSeconds: seconds(env, 'UPLOAD_TTL_SECONDS', 3600),
    reviewTtlSeconds: seconds(env, 'REVIEW_TTL_SECONDS', 7 * 24 * 3600),
    outputRetentionSeconds: seconds(env, 'OUTPUT_RETENTION_SECONDS', 30 * 24 * 3600),
    downloadUrlTtlSeconds: seconds(env, 'DOWNLOAD_URL_TTL_SECONDS', 3600),
    maxUploadBytes: intIn(env, 'MAX_UPLOAD_BYTES', 1024 * 1024 * 1024, 0, LARGEST_BYTES),
    maxOutputRatio: intIn(env, 'MAX_OUTPUT_RATIO', 64, 1, HIGHEST_OUTPUT_RATIO),
    maxJsonBodyBytes: intIn(env, 'MAX_JSON_BODY_BYTES', 1024 * 1024, 0, LARGEST_JSON_BODY_BYTES),
    rateLimitPerMinute: intIn(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, MOST_PER_WINDOW),
    log: logSettings(env),
    http: httpEdgeSettings(env, port),
    eventStorePollMs: millis(env, 'EVENT_STORE_POLL_MS', 200),
    blobStore: blobStoreSettings(env),
    uploadPollMs: millis(env, 'UPLOAD_POLL_MS', 2000),
    sweepIntervalMs: millis(env, 'SWEEP_INTERVAL_MS', 60_000, 10),
    handlerMaxAttempts: intIn(env, 'HANDLER_MAX_ATTEMPTS', 3, 1, MOST_ATTEMPTS),
    deadLetterReplayPollMs: millis(env, 'DEAD_LETTER_REPLAY_POLL_MS', 2000),
    stepClaims: stepClaimSettings(env),
    ...adapterSettings(env),
    defaultPerPage: 15,
    maxPerPage: 100,
    cpuWork: {
      threads: intIn(env, 'CPU_WORKER_THREADS', 2, 0, MOST_CPU_THREADS),
      heapMb: intIn(env, 'CPU_WORKER_HEAP_MB', 64, 0, LARGEST_THREAD_HEAP_MB),
      youngMb: intIn(env, 'CPU_WORKER_YOUNG_MB', 16, 0, LARGEST_THREAD_HEAP_MB),
    },
    ai: {
      timeoutMs: millis(env, 'AI_TIMEOUT_MS', 60_000),
      maxAttempts: intIn(env, 'AI_MAX_ATTEMPTS', 3, 1, MOST_ATTEMPTS),
      retryBaseMs: millis(env, 'AI_RETRY_BASE_MS', 1000),
      maxRetryAfterMs: millis(env, 'AI_MAX_RETRY_AFTER_MS', 30_000),
      maxOutputTokens: intIn(env, 'AI_MAX_OUTPUT_TOKENS', 8192, 0, MOST_OUTPUT_TOKENS),
      maxImageBytes: intIn(env, 'AI_MAX_IMAGE_BYTES', 20 * 1024 * 1024, 0, LARGEST_AI_IMAGE_BYTES),
      allowedAddresses: addressList(env, 'AI_ALLOWED_ADDRESSES'),
    },
    tableLimits: {
      maxRowChars: intIn(env, 'MAX_ROW_CHARS', 1024 * 1024, 1, LONGEST_ROW_CHARS),
      maxFieldChars: intIn(env, 'MAX_FIELD_CHARS', 256 * 1024, 1, LONGEST_ROW_CHARS),
      maxColumns: intIn(env, 'MAX_COLUMNS', 1000, 1, MOST_COLUMNS),
      maxRows: intIn(env, 'MAX_ROWS', 10_000_000, 1, MOST_ROWS),
      maxUnpackedBytes: intIn(env, 'MAX_XLSX_UNPACKED_BYTES', 1024 * 1024 * 1024, 1, LARGEST_BYTES),
      maxCompressionRatio: intIn(env, 'MAX_XLSX_COMPRESSION_RATIO', 200, 1, HIGHEST_XLSX_COMPRESSION_RATIO),
    },
    webhooks: {
      timeoutMs: millis(env, 'WEBHOOK_TIMEOUT_MS', 15_000),
      maxAttempts: intIn(env, 'WEBHOOK_MAX_ATTEMPTS', 3, 1, MOST_ATTEMPTS),
      retryDelaysMs: intList(env, 'WEBHOOK_RETRY_DELAYS_MS', [30_000, 300_000]),
      maxRetryAfterMs: millis(env, 'WEBHOOK_MAX_RETRY_AFTER_MS', 3_600_000),
      pollMs: millis(env, 'WEBHOOK_POLL_MS', 500, 10),
      concurrency: intIn(env, 'WEBHOOK_CONCURRENCY', 50, 1, MOST_AT_ONCE),
      allowedAddresses: addressList(env, 'WEBHOOK_ALLOWED_ADDRESSES'),
    },
    validationHook: {
      timeoutMs: millis(env, 'VALIDATION_HOOK_TIMEOUT_MS', 5_000, 100),
      attempts: intIn(env, 'VALIDATION_HOOK_ATTEMPTS', 3, 1, MOST_ATTEMPTS),
      retryBaseMs: millis(env, 'VALIDATION_HOOK_RETRY_BASE_MS', 500),
      batchRows: intIn(env, 'VALIDATION_HOOK_BATCH_ROWS', 100, 1, 1_000),
      maxRows: intIn(env, 'VALIDATION_HOOK_MAX_ROWS', 10_000, 1, MOST_HOOK_ROWS),
      deadlineMs: millis(env, 'VALIDATION_HOOK_DEADLINE_MS', 30_000, 100),
    },
    console: consoleSettings(env),
  };
}

export const APP_CONFIG = Symbol('APP_CONFIG');
