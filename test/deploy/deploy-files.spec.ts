import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as yaml from 'js-yaml';

/**
 * The deployment files cannot run here (no Docker engine, no cluster), so what can be
 * checked without them is: every app that runs as its own process is in docker-compose
 * and in the Kubernetes manifests, with health checks on endpoints the apps serve, and
 * the committed manifests are what the generator writes.
 */
const root = join(__dirname, '..', '..');
const nestCli = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8'));
const processApps = Object.entries(nestCli.projects as Record<string, { type: string }>)
  .filter(([name, p]) => p.type === 'application' && !['cli', 'standalone'].includes(name))
  .map(([name]) => name)
  .sort();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require(join(root, 'deploy/k8s/generate.js'));

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
      const expected = app === 'gateway' ? ['/openapi.json', '/openapi.json', 3000] : ['/readyz', '/healthz', 8081];
      expect([c.readinessProbe.httpGet.path, c.livenessProbe.httpGet.path, c.readinessProbe.httpGet.port]).toEqual(expected);
    }
    const config = docs.find((d) => d.kind === 'ConfigMap').data;
    expect(config).toMatchObject({ EVENT_STORE: 'eventstoredb', BUS: 'kafka', READ_MODEL: 'mongo', BLOB_STORE: 's3', HEALTH_PORT: '8081' });
  });

  it('docker-compose runs every app with a health check, after the engines are healthy', () => {
    const compose = yaml.load(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as any;
    const apps = Object.entries(compose.services as Record<string, any>).filter(([, s]) => s.environment?.APP);
    expect(apps.map(([, s]) => s.environment.APP).sort()).toEqual(processApps);
    for (const [, s] of apps) {
      expect(s.healthcheck.test.join(' ')).toMatch(s.environment.APP === 'gateway' ? /3000\/openapi\.json/ : /8081\/readyz/);
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
