#!/usr/bin/env node
/**
 * Writes deploy/k8s/transformation-service.yaml: a Deployment per app (one image, APP
 * selects the app), probes on each (liveness /healthz, readiness /readyz), Prometheus scrape
 * annotations on each pod (/metrics on the same port), the gateway's Service, and the shared
 * configuration.
 * The apps differ only in name, replicas and probe port, so they are generated from one
 * description here instead of being copied seven times. `node deploy/k8s/generate.js`
 * after a change; a test fails when the committed file is stale.
 *
 * The engines (Kafka, EventStoreDB, MongoDB, S3/MinIO) are not here: use managed services
 * or their operators, and point the ConfigMap at them.
 */
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const yaml = require('js-yaml');

const NAME = 'transformation-service';
const IMAGE = 'ghcr.io/example/transformation-service:latest';

/** Every app that runs as its own process. `http`: serves the API (probed on its port). */
const APPS = [
  { app: 'gateway', replicas: 2, http: true },
  { app: 'relay', replicas: 1 },
  { app: 'projector', replicas: 1 },
  { app: 'ingestion', replicas: 2 },
  { app: 'mapping', replicas: 1 },
  { app: 'output', replicas: 2 },
  { app: 'notifier', replicas: 1 },
];

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `${NAME}-config` },
  data: {
    NODE_ENV: 'production',
    HEALTH_PORT: '8081',
    HEAP_MB: '112',
    SEMI_SPACE_MB: '2',
    EVENT_STORE: 'eventstoredb',
    BUS: 'kafka',
    KAFKA_BROKERS: 'kafka:9092',
    KAFKA_PARTITIONS: '6',
    KAFKA_REPLICATION_FACTOR: '3',
    READ_MODEL: 'mongo',
    BLOB_STORE: 's3',
    S3_BUCKET: 'transformation-runs',
    S3_REGION: 'us-east-1',
    PUBLIC_BASE_URL: 'https://transform.example.com',
    // The gateway is reached through the ingress controller, whose pods (and any load balancer in
    // front, inside the cluster's private network) forward the client's address in X-Forwarded-For:
    // trusting private-network peers makes request.ip the client, so the failed-authentication
    // throttle counts each client, not the ingress. A client's own X-Forwarded-For entries are
    // not trusted (its address is public).
    TRUST_PROXY: 'loopback,uniquelocal',
  },
};

/**
 * Secrets are referenced, never written here: create `transformation-service-secrets` yourself.
 * The engines' URLs are among them: they carry credentials (and `tls=true` in production).
 */
const secretKeys = [
  'ADMIN_TOKEN',
  'SIGNING_SECRET',
  'SECRETS_KEY',
  'EVENTSTORE_URL',
  'MONGO_URL',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'KAFKA_SASL_PASSWORD',
];
/** Present only where the cluster needs them (SASL). */
const OPTIONAL_SECRETS = new Set(['KAFKA_SASL_PASSWORD']);

/** Every app's operator endpoints (/healthz, /readyz, /metrics): a worker's HEALTH_PORT, the gateway's admin listener. */
const OPERATOR_PORT = 8081;
const API_PORT = 3000;

function deployment({ app, replicas, http }) {
  // A worker answers /healthz, /readyz and /metrics on HEALTH_PORT; the gateway on its admin listener
  // (ADMIN_PORT, with the admin API), which the Service does not expose: /readyz and /metrics are not public.
  const port = OPERATOR_PORT;
  const probe = (path, extra) => ({ httpGet: { path, port }, periodSeconds: 10, timeoutSeconds: 3, ...extra });
  // For Prometheus's usual kubernetes-pods job (docs/operations.md, "Health, metrics and logs").
  const scrape = { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port), 'prometheus.io/path': '/metrics' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `${NAME}-${app}`, labels: { app: NAME, component: app } },
    spec: {
      replicas,
      selector: { matchLabels: { app: NAME, component: app } },
      template: {
        metadata: { labels: { app: NAME, component: app }, annotations: scrape },
        spec: {
          terminationGracePeriodSeconds: 60,
          containers: [
            {
              name: app,
              image: IMAGE,
              env: [
                { name: 'APP', value: app },
                ...(http
                  ? [
                      { name: 'PORT', value: String(API_PORT) },
                      { name: 'ADMIN_PORT', value: String(OPERATOR_PORT) },
                      // The pod's address, for the kubelet's probes and Prometheus; no Service leads to it.
                      { name: 'ADMIN_HOST', value: '0.0.0.0' },
                    ]
                  : []),
                ...secretKeys.map((key) => ({
                  name: key,
                  valueFrom: {
                    secretKeyRef: { name: `${NAME}-secrets`, key, optional: OPTIONAL_SECRETS.has(key) || (key === 'ADMIN_TOKEN' && !http) },
                  },
                })),
              ],
              envFrom: [{ configMapRef: { name: `${NAME}-config` } }],
              ports: http
                ? [
                    { name: 'http', containerPort: API_PORT },
                    { name: 'admin', containerPort: OPERATOR_PORT },
                  ]
                : [{ name: 'health', containerPort: port }],
              // Readiness: the stores answer and every consumer group consumes (a store's check gives up after 3 s,
              // so the probe waits 5 s for the 503 that says why). Liveness: the process and its event loop answer.
              readinessProbe: probe('/readyz', { initialDelaySeconds: 5, timeoutSeconds: 5 }),
              livenessProbe: probe('/healthz', { initialDelaySeconds: 20, failureThreshold: 6 }),
              resources: { requests: { cpu: '250m', memory: '192Mi' }, limits: { memory: '320Mi' } },
              securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
              volumeMounts: [
                { name: 'tmp', mountPath: '/tmp' },
                { name: 'data', mountPath: '/data' },
              ],
            },
          ],
          volumes: [
            { name: 'tmp', emptyDir: {} },
            { name: 'data', emptyDir: {} },
          ],
        },
      },
    },
  };
}

const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: `${NAME}-gateway`, labels: { app: NAME, component: 'gateway' } },
  spec: { selector: { app: NAME, component: 'gateway' }, ports: [{ name: 'http', port: 80, targetPort: API_PORT }] },
};

const documents = [configMap, ...APPS.map(deployment), service];
const header = '# Generated by deploy/k8s/generate.js; edit that file and run it again.\n';
const text = header + documents.map((d) => yaml.dump(d, { lineWidth: 160, noRefs: true })).join('---\n');

module.exports = { APPS, render: () => text };
if (require.main === module) {
  writeFileSync(join(__dirname, 'transformation-service.yaml'), text);
  console.log(`wrote ${documents.length} objects to deploy/k8s/transformation-service.yaml`);
}
