import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { call, httpFetch, type Json } from './service-harness';

/**
 * Checks real answers of a running service against the OpenAPI document it serves, so
 * that the document cannot drift from the code: the operation (method + path template)
 * must be documented, the status must be one of its responses, the body must validate
 * against that response's schema (JSON Schema 2020-12, as OpenAPI 3.1 says), the
 * documented headers must be there (when required) and valid, and no `X-*` or
 * `Retry-After` header may be sent that the response does not document.
 *
 * The document leaves objects open (a client must ignore members it does not know);
 * the check closes them (`additionalProperties: false` where a schema lists
 * `properties` and says nothing else), so a member the code sends and the document
 * omits fails the test too.
 */
export interface OpenApiConformance {
  readonly document: any;
  /** Every operation of the document. */
  readonly operations: Operation[];
  /** `"<operationId> <status>"` of every answer checked so far. */
  readonly seen: Set<string>;
  /** What is wrong with a real answer ([] when it conforms). */
  problems(method: string, url: string, res: Json): string[];
  /** Fails the test unless the answer conforms. */
  expectToMatchDocument(method: string, url: string, res: Json): void;
  /** The harness's call(), then expectToMatchDocument on its answer. */
  call(url: string, init?: Parameters<typeof call>[1]): Promise<Json>;
  /** Schemas that do not compile as strict JSON Schema 2020-12, and examples that do not validate against their schema. */
  schemaProblems(): string[];
  /**
   * What is wrong with a webhook the service sent, against the document's `webhooks` (the event's POST): its
   * documented headers (all required) present and valid, and its JSON body valid against the request body's schema,
   * objects closed ([] when it conforms).
   */
  webhookProblems(event: string, headers: Record<string, string | string[] | undefined>, body: string): string[];
}

export interface Operation {
  operationId: string;
  method: string;
  path: string;
  operation: any;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const COMPONENTS = 'urn:openapi:components';

const loaded = new Map<string, Promise<OpenApiConformance>>();

/** The document served at `baseUrl + documentPath`, fetched once per service. */
export function openApiConformance(baseUrl: string, documentPath: string): Promise<OpenApiConformance> {
  const key = baseUrl + documentPath;
  if (!loaded.has(key)) loaded.set(key, load(baseUrl, documentPath));
  return loaded.get(key)!;
}

async function load(baseUrl: string, documentPath: string): Promise<OpenApiConformance> {
  const res = await httpFetch(baseUrl + documentPath);
  if (!res.ok) throw new Error(`${documentPath}: ${res.status}`);
  return conformance(await res.json());
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function walkSchema(s: unknown, fn: (s: Record<string, any>) => void): void {
  if (!isObject(s)) return;
  fn(s);
  for (const k of ['properties', 'patternProperties', '$defs', 'dependentSchemas'])
    if (isObject(s[k])) Object.values(s[k]).forEach((c) => walkSchema(c, fn));
  for (const k of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) if (Array.isArray(s[k])) s[k].forEach((c: unknown) => walkSchema(c, fn));
  for (const k of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames']) walkSchema(s[k], fn);
}

/** A copy of a schema for Ajv: component references point into the registered components; objects are closed. */
function prepare(schema: unknown): any {
  const copy = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${COMPONENTS}#/$defs/`));
  walkSchema(copy, (s) => {
    if (isObject(s.properties) && s.additionalProperties === undefined && s.unevaluatedProperties === undefined)
      s.additionalProperties = false;
  });
  return copy;
}

const errorsText = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');

export function conformance(document: any): OpenApiConformance {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  // OpenAPI 3.1's own schema keywords (its base vocabulary); `example` and `nullable` are not among them on purpose.
  ajv.addVocabulary(['discriminator', 'xml', 'externalDocs']);
  ajv.addSchema({
    $id: COMPONENTS,
    $defs: Object.fromEntries(Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [name, prepare(schema)])),
  });

  const compiled = new Map<unknown, ValidateFunction>();
  const validator = (schema: unknown): ValidateFunction => {
    if (!compiled.has(schema)) compiled.set(schema, ajv.compile(prepare(schema)));
    return compiled.get(schema)!;
  };
  const resolve = (obj: any): any => {
    while (isObject(obj) && typeof obj.$ref === 'string') {
      obj = obj.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], document);
    }
    return obj;
  };

  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(document.paths ?? {})) {
    for (const method of METHODS) {
      if (item[method]) operations.push({ operationId: item[method].operationId, method, path, operation: item[method] });
    }
  }

  /** The operation for a concrete URL: literal segments beat `{parameters}`, as in the router. */
  const find = (method: string, url: string): Operation | undefined => {
    const segments = new URL(url).pathname.split('/');
    let best: { op: Operation; literals: number } | undefined;
    for (const op of operations) {
      if (op.method !== method.toLowerCase()) continue;
      const template = op.path.split('/');
      if (template.length !== segments.length) continue;
      let literals = 0;
      const fits = template.every((t, i) => {
        if (/^\{[^}]+\}$/.test(t)) return segments[i] !== '';
        literals++;
        return decodeURIComponent(segments[i]) === t;
      });
      if (fits && (!best || literals > best.literals)) best = { op, literals };
    }
    return best?.op;
  };

  const seen = new Set<string>();

  const problems = (method: string, url: string, res: Json): string[] => {
    const op = find(method, url);
    if (!op) return [`${method.toUpperCase()} ${new URL(url).pathname} is not a documented operation`];
    const where = `${op.operationId} ${res.status}`;
    const response = resolve(op.operation.responses?.[String(res.status)]);
    if (!response)
      return [`${where}: status ${res.status} is not documented (documented: ${Object.keys(op.operation.responses ?? {}).join(', ')})`];
    seen.add(where);
    const out: string[] = [];

    const contentType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const empty = res.body === null || res.body === '';
    if (!response.content) {
      if (!empty) out.push(`${where}: the response documents no body, got ${JSON.stringify(res.body).slice(0, 200)}`);
    } else {
      const media = response.content[contentType];
      if (!media) out.push(`${where}: content type "${contentType}" is not documented (${Object.keys(response.content).join(', ')})`);
      else if (media.schema) {
        const validate = validator(media.schema);
        if (!validate(res.body)) out.push(`${where}: body does not match the schema: ${errorsText(validate.errors)}`);
      }
    }

    const documented = Object.fromEntries(Object.entries<any>(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), resolve(h)]));
    for (const [name, header] of Object.entries<any>(documented)) {
      const value = res.headers.get(name);
      if (value === null) {
        if (header.required) out.push(`${where}: required header ${name} is missing`);
        continue;
      }
      const types = [header.schema?.type].flat();
      const coerced = (types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      const validate = validator(header.schema ?? {});
      if (!validate(coerced)) out.push(`${where}: header ${name}: ${JSON.stringify(value)} ${errorsText(validate.errors)}`);
    }
    res.headers.forEach((_value, name) => {
      if (/^(x-|retry-after$)/i.test(name) && !(name.toLowerCase() in documented))
        out.push(`${where}: header ${name} is sent but not documented`);
    });
    return out;
  };

  const expectToMatchDocument = (method: string, url: string, res: Json): void => {
    const found = problems(method, url, res);
    if (found.length > 0) {
      throw new Error(
        `The answer does not match the OpenAPI document:\n  ${found.join('\n  ')}\nbody: ${JSON.stringify(res.body).slice(0, 1000)}`,
      );
    }
  };

  const schemaProblems = (): string[] => {
    const out: string[] = [];
    const check = (where: string, schema: unknown, examples: unknown[]) => {
      let validate: ValidateFunction;
      try {
        validate = validator(schema);
      } catch (err) {
        out.push(`${where}: ${(err as Error).message}`);
        return;
      }
      for (const ex of examples) if (!validate(ex)) out.push(`${where}: example ${JSON.stringify(ex)}: ${errorsText(validate.errors)}`);
      walkSchema(schema, (s) => {
        if (s === schema || !Array.isArray(s.examples)) return;
        const sub = validator(s);
        for (const ex of s.examples)
          if (!sub(ex)) out.push(`${where}: example ${JSON.stringify(ex)} of a subschema: ${errorsText(sub.errors)}`);
      });
    };
    const media = (where: string, content: any) => {
      for (const [type, m] of Object.entries<any>(content ?? {})) {
        if (m.schema)
          check(`${where} ${type}`, m.schema, [
            ...(m.example === undefined ? [] : [m.example]),
            ...Object.values<any>(m.examples ?? {}).map((e) => resolve(e).value),
          ]);
      }
    };
    for (const [name, schema] of Object.entries<any>(document.components?.schemas ?? {}))
      check(`components.schemas.${name}`, schema, schema.examples ?? []);
    for (const [name, r] of Object.entries<any>(document.components?.responses ?? {})) {
      media(`components.responses.${name}`, r.content);
      for (const [h, header] of Object.entries<any>(r.headers ?? {}))
        if (resolve(header).schema) check(`components.responses.${name} header ${h}`, resolve(header).schema, []);
    }
    for (const [name, h] of Object.entries<any>(document.components?.headers ?? {})) check(`components.headers.${name}`, h.schema, []);
    const webhooks = Object.entries<any>(document.webhooks ?? {}).map(([event, item]) => ({
      operationId: `webhook ${event}`,
      operation: item.post,
    }));
    for (const { operationId, operation } of [...operations, ...webhooks]) {
      for (const p of operation.parameters ?? []) check(`${operationId} parameter ${p.name}`, resolve(p).schema, []);
      media(`${operationId} request`, resolve(operation.requestBody)?.content);
      for (const [status, r] of Object.entries<any>(operation.responses ?? {})) {
        media(`${operationId} ${status}`, resolve(r).content);
        for (const [h, header] of Object.entries<any>(resolve(r).headers ?? {}))
          check(`${operationId} ${status} header ${h}`, resolve(header).schema, []);
      }
    }
    return out;
  };

  const webhookProblems = (event: string, headers: Record<string, string | string[] | undefined>, body: string): string[] => {
    const op = document.webhooks?.[event]?.post;
    if (!op) return [`webhook ${event} is not documented`];
    const out: string[] = [];
    for (const p of (op.parameters ?? []).map(resolve).filter((p: any) => p.in === 'header')) {
      const value = headers[p.name.toLowerCase()];
      if (typeof value !== 'string') {
        if (p.required) out.push(`webhook ${event}: header ${p.name} is missing`);
        continue;
      }
      const validate = validator(p.schema ?? {});
      if (!validate(value)) out.push(`webhook ${event}: header ${p.name}: ${JSON.stringify(value)} ${errorsText(validate.errors)}`);
    }
    const schema = resolve(op.requestBody)?.content?.['application/json']?.schema;
    if (!schema) return [...out, `webhook ${event}: no JSON body is documented`];
    const validate = validator(schema);
    if (!validate(JSON.parse(body))) out.push(`webhook ${event}: body does not match the schema: ${errorsText(validate.errors)}`);
    return out;
  };

  return {
    document,
    operations,
    seen,
    problems,
    expectToMatchDocument,
    schemaProblems,
    webhookProblems,
    async call(url, init = {}) {
      const res = await call(url, init);
      const method = init.method ?? (init.raw || init.body !== undefined ? 'POST' : 'GET');
      expectToMatchDocument(method, url, res);
      return res;
    },
  };
}
