import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as yaml from 'js-yaml';
import Fastify from 'fastify';
import { loadConfig } from '@app/config';
import { registry } from '@app/metrics';
import { trustProxyFunction } from '../../apps/gateway/src/http/trust-proxy';

/**
 * The deployment files cannot run here (no Docker engine, no cluster), so what can be
 * checked without them is: every app that runs as its own process is in docker-compose
 * and in the Kubernetes manifests, with health checks on endpoints the apps serve, and
 * the committed manifests are what the generator writes; every app is scraped by Prometheus
 * (compose) or annotated for it (Kubernetes) on the port it serves /metrics on, and the
 * Grafana dashboard asks only for metrics the service exposes.
 */
const root = join(__dirname, '..', '..');
const nestCli = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8'));
const processApps = Object.entries(nestCli.projects as Record<string, { type: string }>)
  .filter(([name, p]) => p.type === 'application' && !['cli', 'standalone'].includes(name))
  .map(([name]) => name)
  .sort();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require(join(root, 'deploy/k8s/generate.js'));

/** What the Secret gives every app (placeholders: nothing is connected). */
const SECRETS = {
  SECRETS_KEY: Buffer.alloc(32).toString('base64'),
  SIGNING_SECRET: 'placeholder-signing-secret-32-chars',
  EVENTSTORE_URL: 'esdb://127.0.0.1:2113?tls=false',
  MONGO_URL: 'mongodb://127.0.0.1:27017/t',
};

describe('deployment files', () => {
  it('the committed Kubernetes manifests are what deploy/k8s/generate.js writes', () => {
    expect(readFileSync(join(root, 'deploy/k8s/transformation-service.yaml'), 'utf8')).toBe(generator.render());
  });

  it('every app has a Deployment with readiness and liveness probes on what it serves', () => {
    const docs = yaml.loadAll(readFileSync(join(root, 'deploy/k8s/transformation-service.yaml'), 'utf8')) as any[];
    const deployments = docs.filter((d) => d.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata.labels.component).sort()).toEqual(processApps);
    for (const d of deployments) {
      const c = d.spec.template.spec.containers[0];
      const app = c.env.find((e: any) => e.name === 'APP').value;
      expect(app).toBe(d.metadata.labels.component);
      const port = 8081; // HEALTH_PORT, or the gateway's admin listener (ADMIN_PORT): operator endpoints are not public
      expect([c.readinessProbe.httpGet, c.livenessProbe.httpGet]).toEqual([
        { path: '/readyz', port },
        { path: '/healthz', port },
      ]);
      expect(d.spec.template.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(port),
        'prometheus.io/path': '/metrics',
      });
      expect(c.ports.map((p: any) => p.containerPort)).toContain(port);
    }
    const config = docs.find((d) => d.kind === 'ConfigMap').data;
    expect(config).toMatchObject({ EVENT_STORE: 'eventstoredb', BUS: 'kafka', READ_MODEL: 'mongo', BLOB_STORE: 's3', HEALTH_PORT: '8081' });
  });

  it('the gateway serves /readyz and /metrics on its admin listener, which its Service does not expose', () => {
    const docs = yaml.loadAll(readFileSync(join(root, 'deploy/k8s/transformation-service.yaml'), 'utf8')) as any[];
    const gateway = docs.find((d) => d.kind === 'Deployment' && d.metadata.labels.component === 'gateway').spec.template.spec.containers[0];
    const env = Object.fromEntries(gateway.env.filter((e: any) => 'value' in e).map((e: any) => [e.name, e.value]));
    const config = loadConfig({
      ...docs.find((d) => d.kind === 'ConfigMap').data,
      ...env,
      ...SECRETS,
    });
    expect(config.http.adminListener).toEqual({ host: '0.0.0.0', port: 8081 });
    expect(config.port).toBe(3000);
    const service = docs.find((d) => d.kind === 'Service');
    expect(service.spec.ports.map((p: any) => p.targetPort)).toEqual([3000]);
  });

  it('the Kubernetes gateway trusts the ingress: throttling sees the client address, not the ingress pod', async () => {
    const docs = yaml.loadAll(readFileSync(join(root, 'deploy/k8s/transformation-service.yaml'), 'utf8')) as any[];
    const data = docs.find((d) => d.kind === 'ConfigMap').data;
    expect(data.TRUST_PROXY).toEqual(expect.any(String));
    const ipBehindIngress = async (env: Record<string, string>, forwardedFor: string) => {
      const config = loadConfig({ ...env, ...SECRETS });
      const app = Fastify({ trustProxy: trustProxyFunction(config.http.trustProxy) });
      app.get('/ip', (request) => ({ ip: request.ip }));
      try {
        // An ingress controller pod (a private address in the cluster) forwards the client's request.
        const res = await app.inject({ url: '/ip', remoteAddress: '10.42.3.17', headers: { 'x-forwarded-for': forwardedFor } });
        return res.json<{ ip: string }>().ip;
      } finally {
        await app.close();
      }
    };
    expect(await ipBehindIngress(data, '203.0.113.9')).toBe('203.0.113.9');
    // Behind a cloud load balancer that is inside the private network too: still the client.
    expect(await ipBehindIngress(data, '198.51.100.4, 10.0.0.5')).toBe('198.51.100.4');
    // A client cannot pick its address: what it wrote itself, before a public hop, is not trusted.
    expect(await ipBehindIngress(data, '10.1.1.1, 203.0.113.9')).toBe('203.0.113.9');
    // Without the setting, every client would be the ingress pod (one throttle bucket for everyone).
    const { TRUST_PROXY: _omitted, ...withoutTrust } = data;
    expect(await ipBehindIngress(withoutTrust, '203.0.113.9')).toBe('10.42.3.17');
  });

  it('docker-compose runs every app with a health check, after the engines are healthy', () => {
    const compose = yaml.load(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as any;
    const apps = Object.entries(compose.services as Record<string, any>).filter(([, s]) => s.environment?.APP);
    expect(apps.map(([, s]) => s.environment.APP).sort()).toEqual(processApps);
    for (const [, s] of apps) {
      expect(s.healthcheck.test.join(' ')).toMatch(s.environment.APP === 'gateway' ? /:3000\/readyz/ : /:8081\/readyz/);
      if (s.environment.APP !== 'gateway') expect(s.environment.HEALTH_PORT).toBe('8081');
      expect(s.environment).toMatchObject({ EVENT_STORE: 'eventstoredb', BUS: 'kafka', READ_MODEL: 'mongo', BLOB_STORE: 's3' });
      expect(Object.keys(s.depends_on).sort()).toEqual(['eventstoredb', 'kafka-init', 'mongo', 's3-init']);
    }
    for (const engine of ['kafka', 'eventstoredb', 'mongo', 's3']) expect(compose.services[engine].healthcheck).toBeDefined();
    expect(compose.services.kafka.environment.KAFKA_PROCESS_ROLES).toBe('broker,controller'); // KRaft, no ZooKeeper
  });

  it('docker-compose pins every image, keeps every engine on a named volume, and creates the topics with retention', () => {
    const compose = yaml.load(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as any;
    for (const [name, s] of Object.entries(compose.services as Record<string, any>).filter(([, s]) => s.image)) {
      expect([name, s.image]).toEqual([name, expect.stringMatching(/:(?!latest$)[\w.-]+$/)]);
      expect(s.image).not.toMatch(/^minio\//); // no longer published as community images
    }
    for (const engine of ['kafka', 'eventstoredb', 'mongo', 's3']) {
      const [volume] = (compose.services[engine].volumes as string[])[0].split(':');
      expect(Object.keys(compose.volumes)).toContain(volume);
    }
    // The volume is where Kafka writes (the image's default log dir is /tmp).
    const [, kafkaMount] = (compose.services.kafka.volumes as string[])[0].split(':');
    expect(compose.services.kafka.environment.KAFKA_LOG_DIRS).toBe(kafkaMount);
    const init = (compose.services['kafka-init'].command as string[]).join(' ').replace(/\s+/g, ' ');
    for (const topic of ['transformation.run.events.v1', 'transformation.run.events.dlq.v1']) {
      const created = new RegExp(
        `--topic ${topic.replace(/\./g, '\\.')} --partitions \\d+ --replication-factor \\d+ --config retention\\.ms=-?\\d+ --config min\\.insync\\.replicas=\\d+`,
      );
      expect(init).toMatch(created);
    }
  });

  it('Prometheus (compose) scrapes every app on the port it serves /metrics on', () => {
    const compose = yaml.load(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as any;
    const prometheus = yaml.load(readFileSync(join(root, 'deploy/prometheus/prometheus.yml'), 'utf8')) as any;
    const targets = (prometheus.scrape_configs as any[]).flatMap((job) =>
      (job.dns_sd_configs ?? []).flatMap((sd: any) =>
        sd.names.map((name: string) => ({ job: job.job_name, target: `${name}:${sd.port}` })),
      ),
    );
    const apps = Object.entries(compose.services as Record<string, any>).filter(([, s]) => s.environment?.APP);
    const expected = apps.map(([service, s]) => ({
      job: s.environment.APP,
      target: `${service}:${s.environment.APP === 'gateway' ? s.environment.PORT : s.environment.HEALTH_PORT}`,
    }));
    expect(targets.sort((a, b) => a.job.localeCompare(b.job))).toEqual(expected.sort((a, b) => a.job.localeCompare(b.job)));
    for (const job of prometheus.scrape_configs) expect(job.metrics_path).toBe('/metrics');
  });

  it('Prometheus and Grafana are optional, pinned, on loopback, and Grafana is provisioned from deploy/grafana', () => {
    const compose = yaml.load(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as any;
    for (const name of ['prometheus', 'grafana']) {
      const s = compose.services[name];
      expect(s.profiles).toEqual(['observability']);
      for (const port of s.ports as string[]) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
    const mounts = (s: any) => (s.volumes as string[]).map((v) => v.split(':')[0]);
    expect(mounts(compose.services.prometheus)).toContain('./deploy/prometheus/prometheus.yml');
    expect(mounts(compose.services.grafana)).toEqual(
      expect.arrayContaining(['./deploy/grafana/provisioning', './deploy/grafana/dashboards']),
    );
    const datasources = yaml.load(readFileSync(join(root, 'deploy/grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as any;
    expect(datasources.datasources[0]).toMatchObject({ type: 'prometheus', uid: 'prometheus', url: 'http://prometheus:9090' });
    const providers = yaml.load(
      readFileSync(join(root, 'deploy/grafana/provisioning/dashboards/transformation-service.yml'), 'utf8'),
    ) as any;
    const dashboardsAt = (compose.services.grafana.volumes as string[])
      .find((v) => v.startsWith('./deploy/grafana/dashboards:'))!
      .split(':')[1];
    expect(providers.providers[0].options.path).toBe(dashboardsAt);
  });

  it('the Grafana dashboard asks only for metrics the service exposes, and shows every metric of its own', () => {
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy/grafana/dashboards/transformation-service.json'), 'utf8'));
    const panels = (dashboard.panels as any[]).filter((p) => p.type !== 'row');
    const exprs: string[] = panels.flatMap((p) => p.targets.map((t: any) => t.expr));
    const exposed = new Set(registry.getMetricsAsArray().map((m) => m.name));
    const asked = new Set(
      exprs
        .flatMap((e) => e.match(/\b(?:http_|transform_|process_|nodejs_)[a-z0-9_]+/g) ?? [])
        .map((n) => n.replace(/_(bucket|count|sum)$/, '')),
    );
    for (const name of asked) expect([name, exposed.has(name)]).toEqual([name, true]);
    const ours = [...exposed].filter((n) => n.startsWith('transform_') || n.startsWith('http_'));
    for (const name of ours) expect([name, asked.has(name)]).toEqual([name, true]);
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const p of panels) expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
  });

  it('docs/operations.md names every metric the service exposes', () => {
    const operations = readFileSync(join(root, 'docs/operations.md'), 'utf8');
    const ours = registry
      .getMetricsAsArray()
      .map((m) => m.name)
      .filter((n) => n.startsWith('transform_') || n.startsWith('http_'));
    for (const name of ours) expect([name, operations.includes(`\`${name}\``)]).toEqual([name, true]);
  });

  it('a .dockerignore keeps the host node_modules, builds and data out of the image', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', 'data', '.git']) expect(ignored).toContain(entry);
  });

  it('credentials live in the Kubernetes Secret, never in the ConfigMap', () => {
    const docs = yaml.loadAll(readFileSync(join(root, 'deploy/k8s/transformation-service.yaml'), 'utf8')) as any[];
    const config = docs.find((d) => d.kind === 'ConfigMap').data as Record<string, string>;
    for (const key of ['EVENTSTORE_URL', 'MONGO_URL', 'ADMIN_TOKEN', 'SECRETS_KEY', 'SIGNING_SECRET', 'S3_SECRET_ACCESS_KEY']) {
      expect(Object.keys(config)).not.toContain(key);
    }
    const gateway = docs.find((d) => d.kind === 'Deployment' && d.metadata.labels.component === 'gateway').spec.template.spec.containers[0];
    const fromSecret = gateway.env.filter((e: any) => e.valueFrom?.secretKeyRef).map((e: any) => e.name);
    expect(fromSecret).toEqual(expect.arrayContaining(['EVENTSTORE_URL', 'MONGO_URL']));
  });
});
