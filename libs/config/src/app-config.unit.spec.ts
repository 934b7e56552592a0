import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { healthPort, loadConfig, logSettings, type AppConfig } from './app-config';

const base = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'cfg-')) });

describe('adapter selection', () => {
  it('defaults to the embedded adapters', () => {
    const c = loadConfig(base());
    expect([c.eventStore.kind, c.bus.kind, c.readModel.kind, c.blobStore.kind]).toEqual(['sqlite', 'in-process', 'sqlite', 'local']);
  });

  it('lets a URL live 7 days less a second with S3, and longer with the local store', () => {
    expect(loadConfig({ ...base(), BLOB_STORE: 's3', S3_BUCKET: 'b', UPLOAD_TTL_SECONDS: '604799' }).uploadTtlSeconds).toBe(604799);
    expect(loadConfig({ ...base(), UPLOAD_TTL_SECONDS: '2000000' }).uploadTtlSeconds).toBe(2000000);
  });

  it('holds uploads to 1 KiB a second over a minute by default; 0 turns it off; the window stays within what a timer can wait', () => {
    expect(loadConfig(base()).http).toMatchObject({ uploadMinBytesPerSecond: 1024, uploadRateWindowMs: 60_000 });
    expect(loadConfig({ ...base(), HTTP_UPLOAD_MIN_BYTES_PER_SECOND: '0' }).http.uploadMinBytesPerSecond).toBe(0);
    expect(loadConfig({ ...base(), HTTP_UPLOAD_RATE_WINDOW_MS: '3600000' }).http.uploadRateWindowMs).toBe(3_600_000);
    expect(loadConfig({ ...base(), HTTP_UPLOAD_RATE_WINDOW_MS: '100' }).http.uploadRateWindowMs).toBe(100);
    for (const bad of ['9999999999', '50'])
      expect(() => loadConfig({ ...base(), HTTP_UPLOAD_RATE_WINDOW_MS: bad })).toThrow(
        `HTTP_UPLOAD_RATE_WINDOW_MS must be an integer from 100 to 3600000, got "${bad}"`,
      );
  });

  it('reads the distributed settings', () => {
    const c = loadConfig({
      ...base(),
      EVENT_STORE: 'eventstoredb',
      EVENTSTORE_URL: 'esdb://es:2113?tls=false',
      BUS: 'kafka',
      KAFKA_BROKERS: 'k1:9092, k2:9092',
      KAFKA_PARTITIONS: '12',
      READ_MODEL: 'mongo',
      MONGO_URL: 'mongodb://m/?replicaSet=rs0',
      BUCKET_EVENTS_TOPIC: 'minio.bucket.events',
    });
    expect(c.eventStore).toEqual({ kind: 'eventstoredb', url: 'esdb://es:2113?tls=false' });
    expect(c.bus).toEqual({
      kind: 'kafka',
      brokers: ['k1:9092', 'k2:9092'],
      clientId: 'transformation-service',
      partitions: 12,
      replicationFactor: 1,
      bucketEventsTopic: 'minio.bucket.events',
      retentionMs: 30 * 24 * 3600 * 1000,
      ssl: false,
      sasl: null,
    });
    expect(c.readModel).toEqual({ kind: 'mongo', url: 'mongodb://m/?replicaSet=rs0' });
  });

  it.each([
    [{ EVENT_STORE: 'eventstoredb' }, 'EVENT_STORE=eventstoredb needs EVENTSTORE_URL.'],
    [{ BUS: 'kafka' }, 'BUS=kafka needs KAFKA_BROKERS.'],
    [{ READ_MODEL: 'mongo' }, 'READ_MODEL=mongo needs MONGO_URL.'],
    [{ BUS: 'rabbit' }, 'BUS must be in-process or kafka, not rabbit.'],
    [
      { BUS: 'kafka', KAFKA_BROKERS: 'k:9092', KAFKA_PARTITIONS: 'many' },
      'KAFKA_PARTITIONS must be an integer from 1 to 10000, got "many"',
    ],
    // A topic of no partitions, or kept on no broker, is refused by Kafka when the service makes it, long after the start.
    [{ BUS: 'kafka', KAFKA_BROKERS: 'k:9092', KAFKA_PARTITIONS: '0' }, 'KAFKA_PARTITIONS must be an integer from 1 to 10000, got "0"'],
    [
      { BUS: 'kafka', KAFKA_BROKERS: 'k:9092', KAFKA_REPLICATION_FACTOR: '0' },
      'KAFKA_REPLICATION_FACTOR must be an integer from 1 to 32767, got "0"',
    ],
    [
      { BLOB_STORE: 's3', S3_BUCKET: 'b', UPLOAD_TTL_SECONDS: '604800' },
      "UPLOAD_TTL_SECONDS must be at most 604799 with BLOB_STORE=s3 (S3's pre-signed URLs live 7 days at most).",
    ],
    [{ BLOB_STORE: 's3', S3_BUCKET: 'b', DOWNLOAD_URL_TTL_SECONDS: '700000' }, 'DOWNLOAD_URL_TTL_SECONDS must be at most 604799'],
  ])('refuses %j at start-up', (env, message) => {
    expect(() => loadConfig({ ...base(), ...env })).toThrow(message);
  });
});

describe('log settings', () => {
  it('collapses repeated fast reads into a line a second by default, keeps every sampled line at 0, refuses nonsense', () => {
    expect(logSettings({}, false)).toMatchObject({ format: 'json', successSampleRate: 1, repeatWindowMs: 1000, slowRequestMs: 500 });
    expect(logSettings({ LOG_REPEAT_WINDOW_MS: '0' }, false).repeatWindowMs).toBe(0);
    expect(logSettings({ LOG_REPEAT_WINDOW_MS: '250', LOG_SUCCESS_SAMPLE_RATE: '0.5' }, false)).toMatchObject({
      repeatWindowMs: 250,
      successSampleRate: 0.5,
    });
    expect(() => logSettings({ LOG_REPEAT_WINDOW_MS: 'soon' }, false)).toThrow(
      /LOG_REPEAT_WINDOW_MS must be an integer from 0 to 2147483647/,
    );
    expect(() => logSettings({ LOG_SUCCESS_SAMPLE_RATE: '2' }, false)).toThrow(/LOG_SUCCESS_SAMPLE_RATE must be a number from 0 to 1/);
  });
});

describe("the workers' HEALTH_PORT", () => {
  it('is a port from 1 to 65535, or unset or 0 for none; anything else stops the start, naming it', () => {
    expect(healthPort({})).toBeNull();
    expect(healthPort({ HEALTH_PORT: '' })).toBeNull();
    expect(healthPort({ HEALTH_PORT: '0' })).toBeNull();
    expect(healthPort({ HEALTH_PORT: '8081' })).toBe(8081);
    for (const bad of ['abc', '65536', '80.5', '-1'])
      expect(() => healthPort({ HEALTH_PORT: bad })).toThrow(`HEALTH_PORT must be a port number from 1 to 65535 (0: none), got "${bad}"`);
  });
});

describe('PORT and ADMIN_PORT', () => {
  it('take a port from 1 to 65535, PORT also 0 (any free port)', () => {
    expect(loadConfig(base()).port).toBe(3000);
    expect(loadConfig({ ...base(), PORT: '0' }).port).toBe(0);
    expect(loadConfig({ ...base(), PORT: '65535' }).port).toBe(65535);
    expect(loadConfig({ ...base(), ADMIN_PORT: '65535' }).http.adminListener).toEqual({ host: '127.0.0.1', port: 65535 });
  });

  it.each([
    [{ PORT: '70000' }, 'PORT must be a port number from 1 to 65535 (0: any free port), got "70000"'],
    [{ PORT: '65536' }, 'PORT must be a port number from 1 to 65535 (0: any free port), got "65536"'],
    [{ PORT: 'abc' }, 'PORT must be a port number from 1 to 65535 (0: any free port), got "abc"'],
    [{ PORT: '-1' }, 'PORT must be a port number from 1 to 65535 (0: any free port), got "-1"'],
    [{ ADMIN_PORT: '99999' }, 'ADMIN_PORT must be a port number from 1 to 65535, got "99999"'],
    [{ ADMIN_PORT: '0' }, 'ADMIN_PORT must be a port number from 1 to 65535, got "0"'],
    [{ PORT: '8080', ADMIN_PORT: '8080' }, 'ADMIN_PORT must be a port other than PORT (8080).'],
  ])('refuse %j before anything is written to DATA_DIR', (env, message) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfg-port-'));
    expect(() => loadConfig({ DATA_DIR: dataDir, ...env })).toThrow(message);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('ADMIN_TOKEN', () => {
  it('is refused under 32 characters before anything is written to DATA_DIR; unset leaves the admin API off', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfg-admin-'));
    expect(() => loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: 'x'.repeat(31) })).toThrow(
      'ADMIN_TOKEN must be at least 32 characters long (it has 31)',
    );
    expect(readdirSync(dataDir)).toEqual([]);
    expect(loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: 'x'.repeat(32) }).adminToken).toBe('x'.repeat(32));
    expect(loadConfig({ DATA_DIR: dataDir }).adminToken).toBeNull();
  });
});

describe('values that used to be taken in silence', () => {
  it.each([
    [{ ADMIN_TOKEN: ' '.repeat(34) }, 'ADMIN_TOKEN must not be blank nor begin or end with white space'],
    [{ ADMIN_TOKEN: ` ${'x'.repeat(32)}` }, 'ADMIN_TOKEN must not be blank nor begin or end with white space'],
    [{ ADMIN_TOKEN: `${'x'.repeat(32)}\n` }, 'ADMIN_TOKEN must not be blank nor begin or end with white space'],
    [{ SIGNING_SECRET: 'x' }, 'SIGNING_SECRET must be at least 32 characters long (it has 1)'],
    [{ SIGNING_SECRET: 'x'.repeat(31) }, 'SIGNING_SECRET must be at least 32 characters long (it has 31)'],
    [
      { PUBLIC_BASE_URL: 'notaurl' },
      'PUBLIC_BASE_URL must be an absolute http or https URL such as https://transform.example.com (not a URL), got "notaurl"',
    ],
    [{ PUBLIC_BASE_URL: '/console' }, 'PUBLIC_BASE_URL must be an absolute http or https URL'],
    [{ PUBLIC_BASE_URL: 'ftp://files.example.com' }, '(its scheme is ftp)'],
    [{ PUBLIC_BASE_URL: 'https://t.example.com/?a=1' }, '(no query or fragment)'],
    [{ PUBLIC_BASE_URL: 'https://t.example.com/#top' }, '(no query or fragment)'],
    [{ PUBLIC_BASE_URL: 'https://t.example.com?' }, '(no query or fragment)'],
    [{ PUBLIC_BASE_URL: 'https://me:pw@t.example.com' }, '(no user name or password)'],
    [
      { OTEL_TRACES_EXPORTER: 'bogus' },
      'OTEL_TRACES_EXPORTER must name otlp, zipkin, console or none (comma-separated, lower case), got "bogus"',
    ],
    [{ OTEL_TRACES_EXPORTER: 'otlp,jaeger' }, 'OTEL_TRACES_EXPORTER must name otlp, zipkin, console or none'],
    [{ OTEL_TRACES_EXPORTER: 'OTLP' }, 'OTEL_TRACES_EXPORTER must name otlp, zipkin, console or none'],
    [
      { TRUST_PROXY: 'loopback, proxy.example' },
      'TRUST_PROXY must be true, false, a hop count, or addresses, CIDRs and loopback, linklocal, uniquelocal, got "proxy.example"',
    ],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'got "10.0.0.0/33"'],
    [{ TRUST_PROXY: '10.0.0.256' }, 'got "10.0.0.256"'],
    [{ TRUST_PROXY: 'yes' }, 'got "yes"'],
  ])('refuses %j before anything is written to DATA_DIR', (env, message) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfg-bad-'));
    expect(() => loadConfig({ DATA_DIR: dataDir, ...env })).toThrow(message);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('takes an http(s) base URL with a path, without its trailing slashes, its scheme and host in lower case', () => {
    expect(loadConfig(base()).publicBaseUrl).toBe('http://localhost:3000');
    expect(loadConfig({ ...base(), PORT: '0' }).publicBaseUrl).toBe('http://localhost:0');
    expect(loadConfig({ ...base(), PUBLIC_BASE_URL: 'http://127.0.0.1:8080' }).publicBaseUrl).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ ...base(), PUBLIC_BASE_URL: 'HTTPS://Transform.Example.com/api//' }).publicBaseUrl).toBe(
      'https://transform.example.com/api',
    );
  });

  it('takes a signing secret of 32 characters or more, and the exporters tracing knows', () => {
    expect(loadConfig({ ...base(), SIGNING_SECRET: 'entry-point-check-signing-secret' }).signingSecret.toString()).toBe(
      'entry-point-check-signing-secret',
    );
    for (const exporters of ['', 'otlp', 'console, zipkin', 'none', 'otlp,none'])
      expect(() => loadConfig({ ...base(), OTEL_TRACES_EXPORTER: exporters })).not.toThrow();
  });

  it('takes TRUST_PROXY as a boolean, a hop count, or addresses, CIDRs and named ranges in any case', () => {
    const trust = (TRUST_PROXY: string) => loadConfig({ ...base(), TRUST_PROXY }).http.trustProxy;
    expect(trust('true')).toBe(true);
    expect(trust('2')).toBe(2);
    expect(trust(' Loopback , 203.0.113.7, 2001:db8::/32,::ffff:10.0.0.1, uniquelocal ')).toEqual([
      'Loopback',
      '203.0.113.7',
      '2001:db8::/32',
      '::ffff:10.0.0.1',
      'uniquelocal',
    ]);
    expect(loadConfig(base()).http.trustProxy).toEqual(['loopback']);
  });
});

describe('numbers out of their range', () => {
  it.each([
    [{ MAX_OUTPUT_RATIO: '0' }, 'MAX_OUTPUT_RATIO must be an integer from 1 to 10000, got "0"'],
    [{ VALIDATION_HOOK_BATCH_ROWS: '5000' }, 'VALIDATION_HOOK_BATCH_ROWS must be an integer from 1 to 1000, got "5000"'],
    [{ VALIDATION_HOOK_BATCH_ROWS: '0' }, 'VALIDATION_HOOK_BATCH_ROWS must be an integer from 1 to 1000, got "0"'],
    [{ HTTP_UPLOAD_RATE_WINDOW_MS: '50' }, 'HTTP_UPLOAD_RATE_WINDOW_MS must be an integer from 100 to 3600000, got "50"'],
    [
      { STEP_CLAIM_RENEW_MS: '20000' },
      'STEP_CLAIM_RENEW_MS must be an integer from 100 to 10000 (at most a third of STEP_CLAIM_TTL_MS), got "20000"',
    ],
    [{ STEP_CLAIM_RENEW_MS: '50' }, 'STEP_CLAIM_RENEW_MS must be an integer from 100 to 10000'],
    [
      { STEP_CLAIM_TTL_MS: '999' },
      'STEP_CLAIM_TTL_MS must be an integer from 1000 to 2147483647 (at most 24.8 days, the longest a timer waits), got "999"',
    ],
    [
      { SWEEP_INTERVAL_MS: '5' },
      'SWEEP_INTERVAL_MS must be an integer from 10 to 2147483647 (at most 24.8 days, the longest a timer waits), got "5"',
    ],
    [
      { WEBHOOK_POLL_MS: '1' },
      'WEBHOOK_POLL_MS must be an integer from 10 to 2147483647 (at most 24.8 days, the longest a timer waits), got "1"',
    ],
    [
      { VALIDATION_HOOK_TIMEOUT_MS: '99' },
      'VALIDATION_HOOK_TIMEOUT_MS must be an integer from 100 to 2147483647 (at most 24.8 days, the longest a timer waits), got "99"',
    ],
    [
      { CONSOLE_SESSION_IDLE_SECONDS: '0' },
      'CONSOLE_SESSION_IDLE_SECONDS must be an integer from 1 to 315360000 (at most 10 years), got "0"',
    ],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '0' },
      'HTTP_HEADERS_TIMEOUT_MS must be an integer from 1 to 2147483647 (at most 24.8 days, the longest a timer waits), got "0"',
    ],
    [{ MAX_ROWS: '0' }, 'MAX_ROWS must be an integer from 1 to 4294967295, got "0"'],
    [{ HANDLER_MAX_ATTEMPTS: '0' }, 'HANDLER_MAX_ATTEMPTS must be an integer from 1 to 20, got "0"'],
  ])('are refused as any bad value is, naming the variable: %j', (env, message) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfg-range-'));
    expect(() => loadConfig({ DATA_DIR: dataDir, ...env })).toThrow(message);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  const SECONDS_SETTINGS = [
    'UPLOAD_TTL_SECONDS',
    'REVIEW_TTL_SECONDS',
    'OUTPUT_RETENTION_SECONDS',
    'DOWNLOAD_URL_TTL_SECONDS',
    'AUTH_FAILURE_WINDOW_SECONDS',
    'CONSOLE_SESSION_IDLE_SECONDS',
    'CONSOLE_INVITATION_TTL_SECONDS',
    'CONSOLE_SIGNIN_WINDOW_SECONDS',
  ];
  const MS_SETTINGS = [
    'LOG_REPEAT_WINDOW_MS',
    'LOG_SLOW_REQUEST_MS',
    'STEP_CLAIM_TTL_MS',
    'HTTP_HEADERS_TIMEOUT_MS',
    'HTTP_BODY_TIMEOUT_MS',
    'HTTP_UPLOAD_IDLE_TIMEOUT_MS',
    'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    'EVENT_STORE_POLL_MS',
    'UPLOAD_POLL_MS',
    'SWEEP_INTERVAL_MS',
    'DEAD_LETTER_REPLAY_POLL_MS',
    'AI_TIMEOUT_MS',
    'AI_RETRY_BASE_MS',
    'AI_MAX_RETRY_AFTER_MS',
    'WEBHOOK_TIMEOUT_MS',
    'WEBHOOK_MAX_RETRY_AFTER_MS',
    'WEBHOOK_POLL_MS',
    'VALIDATION_HOOK_TIMEOUT_MS',
    'VALIDATION_HOOK_RETRY_BASE_MS',
    'VALIDATION_HOOK_DEADLINE_MS',
  ];

  it('a duration in seconds is at most 10 years: 4e11 made expiries past year 9999 (`+014702-…`), no RFC 3339 date-time', () => {
    for (const name of SECONDS_SETTINGS) {
      for (const bad of ['4e11', '315360001'])
        expect(() => loadConfig({ ...base(), [name]: bad })).toThrow(
          `${name} must be an integer from ${name.startsWith('CONSOLE_') || name.startsWith('AUTH_') ? 1 : 0} to 315360000 (at most 10 years), got "${bad}"`,
        );
      expect(() => loadConfig({ ...base(), [name]: '315360000' })).not.toThrow();
    }
    const c = loadConfig({ ...base(), REVIEW_TTL_SECONDS: '315360000', OUTPUT_RETENTION_SECONDS: '315360000' });
    expect([c.reviewTtlSeconds, c.outputRetentionSeconds]).toEqual([315_360_000, 315_360_000]);
  });

  it('a duration in milliseconds is at most 2^31 - 1 (24.8 days): a longer timer fires at once', () => {
    for (const name of MS_SETTINGS) {
      expect(() => loadConfig({ ...base(), [name]: '2147483648' })).toThrow(
        new RegExp(
          `^${name} must be an integer from \\d+ to 2147483647 \\(at most 24\\.8 days, the longest a timer waits\\), got "2147483648"$`,
        ),
      );
      expect(() => loadConfig({ ...base(), [name]: '2147483647' })).not.toThrow();
    }
    expect(() => loadConfig({ ...base(), WEBHOOK_RETRY_DELAYS_MS: '60,2147483648' })).toThrow(
      'WEBHOOK_RETRY_DELAYS_MS must be a comma-separated list of integers from 0 to 2147483647 (24.8 days), got "60,2147483648"',
    );
    expect(loadConfig({ ...base(), WEBHOOK_RETRY_DELAYS_MS: '60,2147483647' }).webhooks.retryDelaysMs).toEqual([60, 2_147_483_647]);
    const kafka = { BUS: 'kafka', KAFKA_BROKERS: 'k:9092' };
    expect(() => loadConfig({ ...base(), ...kafka, KAFKA_RETENTION_MS: '315360000001' })).toThrow(
      'KAFKA_RETENTION_MS must be an integer from 0 to 315360000000 (at most 10 years, or -1: for ever), got "315360000001"',
    );
    // Kafka's "for ever", as docs/configuration.md offers it; no other negative.
    const retention = (value: string) => loadConfig({ ...base(), ...kafka, KAFKA_RETENTION_MS: value }).bus;
    expect(retention('-1')).toMatchObject({ kind: 'kafka', retentionMs: -1 });
    expect(() => retention('-2')).toThrow('KAFKA_RETENTION_MS must be an integer from 0 to 315360000000');
  });

  it('are taken at their bounds; the renewal left unset follows a short claim TTL down', () => {
    const c = loadConfig({ ...base(), MAX_OUTPUT_RATIO: '1', VALIDATION_HOOK_BATCH_ROWS: '1000', STEP_CLAIM_RENEW_MS: '10000' });
    expect([c.maxOutputRatio, c.validationHook.batchRows, c.stepClaims.renewMs]).toEqual([1, 1000, 10_000]);
    expect(loadConfig({ ...base(), STEP_CLAIM_TTL_MS: '3000' }).stepClaims).toEqual({ ttlMs: 3000, renewMs: 1000, concurrency: 8 });
    expect(loadConfig({ ...base(), STEP_CLAIM_TTL_MS: '60000', STEP_CLAIM_RENEW_MS: '20000' }).stepClaims.renewMs).toBe(20_000);
    expect(() => loadConfig({ ...base(), STEP_CLAIM_TTL_MS: '3000', STEP_CLAIM_RENEW_MS: '2000' })).toThrow(
      'STEP_CLAIM_RENEW_MS must be an integer from 100 to 1000 (at most a third of STEP_CLAIM_TTL_MS), got "2000"',
    );
  });
});

describe('the largest value of each number that is no duration', () => {
  const kafka = { BUS: 'kafka', KAFKA_BROKERS: 'k:9092' };
  const kafkaOf = (c: AppConfig) => (c.bus.kind === 'kafka' ? c.bus : null);
  // [variable, least, largest, where the loaded config keeps it, other settings it needs]
  const BOUNDED: [string, number, number, (c: AppConfig) => number | undefined, Record<string, string>?][] = [
    // byte sizes
    ['MAX_UPLOAD_BYTES', 0, 2 ** 40, (c) => c.maxUploadBytes],
    ['MAX_XLSX_UNPACKED_BYTES', 1, 2 ** 40, (c) => c.tableLimits.maxUnpackedBytes],
    ['HTTP_MAX_JSON_BYTES_IN_FLIGHT', 1, 2 ** 40, (c) => c.http.maxJsonBytesInFlight],
    ['MAX_JSON_BODY_BYTES', 0, 268_435_456, (c) => c.maxJsonBodyBytes],
    ['AI_MAX_IMAGE_BYTES', 0, 25_165_824, (c) => c.ai.maxImageBytes],
    // a rate
    ['HTTP_UPLOAD_MIN_BYTES_PER_SECOND', 0, 2 ** 30, (c) => c.http.uploadMinBytesPerSecond],
    // ratios
    ['MAX_OUTPUT_RATIO', 1, 10_000, (c) => c.maxOutputRatio],
    ['MAX_XLSX_COMPRESSION_RATIO', 1, 1032, (c) => c.tableLimits.maxCompressionRatio],
    // a table's limits
    ['MAX_ROW_CHARS', 1, 2 ** 28, (c) => c.tableLimits.maxRowChars],
    ['MAX_FIELD_CHARS', 1, 2 ** 28, (c) => c.tableLimits.maxFieldChars],
    ['MAX_COLUMNS', 1, 65_536, (c) => c.tableLimits.maxColumns],
    ['MAX_ROWS', 1, 2 ** 32 - 1, (c) => c.tableLimits.maxRows],
    ['VALIDATION_HOOK_MAX_ROWS', 1, 1_000_000, (c) => c.validationHook.maxRows],
    // attempts
    ['HANDLER_MAX_ATTEMPTS', 1, 20, (c) => c.handlerMaxAttempts],
    ['AI_MAX_ATTEMPTS', 1, 20, (c) => c.ai.maxAttempts],
    ['WEBHOOK_MAX_ATTEMPTS', 1, 20, (c) => c.webhooks.maxAttempts],
    ['VALIDATION_HOOK_ATTEMPTS', 1, 20, (c) => c.validationHook.attempts],
    // work at once, threads and their heaps in megabytes
    ['STEP_CONCURRENCY', 1, 10_000, (c) => c.stepClaims.concurrency],
    ['WEBHOOK_CONCURRENCY', 1, 10_000, (c) => c.webhooks.concurrency],
    ['CPU_WORKER_THREADS', 0, 64, (c) => c.cpuWork.threads],
    ['CPU_WORKER_HEAP_MB', 0, 65_536, (c) => c.cpuWork.heapMb],
    ['CPU_WORKER_YOUNG_MB', 0, 65_536, (c) => c.cpuWork.youngMb],
    // limits per window, connections, tokens
    ['RATE_LIMIT_PER_MINUTE', 0, 1_000_000_000, (c) => c.rateLimitPerMinute],
    ['AUTH_FAILURE_LIMIT', 0, 1_000_000_000, (c) => c.http.authFailureLimit],
    ['CONSOLE_SIGNIN_ACCOUNT_LIMIT', 1, 1_000_000_000, (c) => c.console.signInAccountLimit],
    ['CONSOLE_SIGNIN_ADDRESS_LIMIT', 1, 1_000_000_000, (c) => c.console.signInAddressLimit],
    ['HTTP_MAX_CONNECTIONS', 0, 1_048_576, (c) => c.http.maxConnections],
    ['AI_MAX_OUTPUT_TOKENS', 0, 1_000_000, (c) => c.ai.maxOutputTokens],
    // Kafka's topics
    ['KAFKA_PARTITIONS', 1, 10_000, (c) => kafkaOf(c)?.partitions, kafka],
    ['KAFKA_REPLICATION_FACTOR', 1, 32_767, (c) => kafkaOf(c)?.replicationFactor, kafka],
  ];

  // `needs` as a rest parameter: a callback with more parameters than a row has is handed jest's `done`.
  it.each(BOUNDED)(
    '%s (%i to %i) is refused past its largest, naming it and its range, and taken at it',
    (name, least, largest, read, ...[needs]) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'cfg-largest-'));
      const past = String(largest + 1);
      expect(() => loadConfig({ DATA_DIR: dataDir, ...needs, [name]: past })).toThrow(
        new Error(`${name} must be an integer from ${least} to ${largest}, got "${past}"`),
      );
      expect(readdirSync(dataDir)).toEqual([]);
      expect(read(loadConfig({ ...base(), ...needs, [name]: String(largest) }))).toBe(largest);
    },
  );

  it('refuses the values that used to start the service and fail later: 1e300 bytes, 1e9 threads', () => {
    expect(() => loadConfig({ ...base(), MAX_UPLOAD_BYTES: '1e300' })).toThrow(
      'MAX_UPLOAD_BYTES must be an integer from 0 to 1099511627776, got "1e300"',
    );
    expect(() => loadConfig({ ...base(), CPU_WORKER_THREADS: '1e9' })).toThrow(
      'CPU_WORKER_THREADS must be an integer from 0 to 64, got "1e9"',
    );
    expect(() => loadConfig({ ...base(), CPU_WORKER_HEAP_MB: '1e300' })).toThrow(
      'CPU_WORKER_HEAP_MB must be an integer from 0 to 65536, got "1e300"',
    );
  });

  it('takes a TRUST_PROXY hop count up to 100', () => {
    expect(loadConfig({ ...base(), TRUST_PROXY: '100' }).http.trustProxy).toBe(100);
    expect(loadConfig({ ...base(), TRUST_PROXY: '0' }).http.trustProxy).toBe(0);
    for (const bad of ['101', '99999999999999999999'])
      expect(() => loadConfig({ ...base(), TRUST_PROXY: bad })).toThrow(
        `TRUST_PROXY must be an integer from 0 to 100 as a hop count, got "${bad}"`,
      );
  });

  it('keeps the defaults within their bounds', () => {
    const c = loadConfig(base());
    for (const [name, least, largest, read] of BOUNDED) {
      const value = read(c);
      if (value === undefined) continue;
      expect([name, value >= least && value <= largest]).toEqual([name, true]);
    }
  });
});
