import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PATTERN_EXTRAS_METADATA, PATTERN_METADATA } from '@nestjs/microservices/constants';
import { RUN_EVENT_TYPES } from '@app/contracts';
const APPS = join(__dirname, '../..');

/** Every exported class of every `apps/<app>/src/*.handlers.ts`: a new handler file is found without listing it here. */
function handlerClasses(): Array<new (...args: never[]) => unknown> {
  return readdirSync(APPS).flatMap((app) => {
    const dir = join(APPS, app, 'src');
    return (
      readdirSync(dir)
        .filter((f) => f.endsWith('.handlers.ts'))
        // eslint-disable-next-line @typescript-eslint/no-require-imports -- found by name, so not imported statically
        .flatMap((f) => Object.values(require(join(dir, f)) as Record<string, unknown>))
        .filter((v): v is new (...args: never[]) => unknown => typeof v === 'function')
    );
  });
}

/** `event group Class.method` for every @EventPattern, read from the decorators' metadata. */
function declaredRoutes(): string[] {
  const routes: string[] = [];
  for (const cls of handlerClasses()) {
    const proto = cls.prototype as unknown as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const method = proto[name];
      if (typeof method !== 'function') continue;
      const patterns = Reflect.getMetadata(PATTERN_METADATA, method) as string[] | undefined;
      if (!patterns) continue;
      const { consumer } = Reflect.getMetadata(PATTERN_EXTRAS_METADATA, method) as { consumer: string };
      for (const event of patterns) routes.push(`${event} ${consumer} ${cls.name}.${name}`);
    }
  }
  return routes.sort();
}

/** The same triples from docs/events.md's "Who handles what" table ("every run event" expanded). */
function documentedRoutes(): string[] {
  const doc = readFileSync(join(__dirname, '../../../docs/events.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Who handles what'), doc.indexOf('## Versioning policy'));
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| event') && !l.startsWith('| ---'))
    .map((l) => l.split('|').map((c) => c.trim()));
  return rows
    .flatMap(([, event, group, handler]) =>
      (event === 'every run event' ? RUN_EVENT_TYPES : [event]).map((e) => `${e} ${group} ${handler}`),
    )
    .sort();
}

describe('event routing', () => {
  it('docs/events.md lists exactly the handlers the @EventPattern decorators declare', () => {
    expect(documentedRoutes()).toEqual(declaredRoutes());
  });

  it('finds the handlers of the five worker apps', () => {
    expect(new Set(declaredRoutes().map((r) => r.split(' ')[1]))).toEqual(
      new Set(['ingestion', 'mapping', 'output', 'notifier', 'projector']),
    );
  });

  it('every handled event is a run event type, and no group handles one type twice', () => {
    const routes = declaredRoutes().map((r) => r.split(' '));
    expect(routes.filter(([event]) => !(RUN_EVENT_TYPES as readonly string[]).includes(event))).toEqual([]);
    const keys = routes.map(([event, group]) => `${event} ${group}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
