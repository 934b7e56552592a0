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
      expect(Object.keys(s.depends_on).sort()).toEqual(['eventstoredb', 'kafka-init', 'minio-init', 'mongo']);
    }
    for (const engine of ['kafka', 'eventstoredb', 'mongo', 'minio']) expect(compose.services[engine].healthcheck).toBeDefined();
    expect(compose.services.kafka.environment.KAFKA_PROCESS_ROLES).toBe('broker,controller'); // KRaft, no ZooKeeper
  });
});
