import type { Json } from './error-responses';

/**
 * @nestjs/swagger writes OpenAPI 3.0 schemas whatever `openapi` says: `nullable: true`
 * and `example`. In 3.1 a schema is JSON Schema 2020-12, where neither means anything
 * (`nullable` is silently ignored, so a null would fail validation). This rewrites them:
 * `type: 'string', nullable: true` becomes `type: ['string', 'null']` (and `null` joins an
 * `enum`), a nullable reference becomes `anyOf: [<ref>, { type: 'null' }]`, and
 * `example: x` becomes `examples: [x]`. Only schema objects are visited (a property
 * *named* `nullable` or `example` is left alone), those of the paths, the webhooks and the components.
 */
export function toOpenApi31<T extends object>(document: T): T {
  const doc = document as Json;
  doc.openapi = '3.1.0';
  forEachSchema(doc, convert);
  return document;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const values = (v: unknown): unknown[] => (isObject(v) ? Object.values(v) : []);

/** Calls `fn` on every schema object of the document, parents before children. */
export function forEachSchema(doc: Json, fn: (schema: Json) => void): void {
  const schema = (s: unknown): void => {
    if (!isObject(s)) return;
    fn(s);
    for (const key of ['properties', 'patternProperties', '$defs', 'dependentSchemas']) values(s[key]).forEach(schema);
    for (const key of ['allOf', 'anyOf', 'oneOf', 'prefixItems']) if (Array.isArray(s[key])) (s[key] as unknown[]).forEach(schema);
    for (const key of [
      'items',
      'additionalProperties',
      'not',
      'if',
      'then',
      'else',
      'contains',
      'propertyNames',
      'unevaluatedProperties',
    ]) {
      schema(s[key]);
    }
  };
  const content = (c: unknown) => values(c).forEach((media) => isObject(media) && schema(media.schema));
  const parameter = (p: unknown) => isObject(p) && (schema(p.schema), content(p.content));
  const header = parameter;
  const response = (r: unknown) => isObject(r) && (content(r.content), values(r.headers).forEach(header));
  const requestBody = (b: unknown) => isObject(b) && content(b.content);
  const operation = (op: unknown) => {
    if (!isObject(op)) return;
    if (Array.isArray(op.parameters)) op.parameters.forEach(parameter);
    requestBody(op.requestBody);
    values(op.responses).forEach(response);
  };
  for (const item of [...values(doc.paths), ...values(doc.webhooks)]) {
    if (!isObject(item)) continue;
    if (Array.isArray(item.parameters)) item.parameters.forEach(parameter);
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) operation(item[method]);
  }
  const components = isObject(doc.components) ? doc.components : {};
  values(components.schemas).forEach(schema);
  values(components.parameters).forEach(parameter);
  values(components.headers).forEach(header);
  values(components.responses).forEach(response);
  values(components.requestBodies).forEach(requestBody);
}

const ANNOTATIONS = ['title', 'description', 'default', 'examples', 'readOnly', 'writeOnly', 'deprecated'];

function convert(s: Json): void {
  if ('example' in s) {
    if (!('examples' in s)) s.examples = [s.example];
    delete s.example;
  }
  if (!('nullable' in s)) return;
  const nullable = s.nullable === true;
  delete s.nullable;
  if (!nullable) return;
  if ('$ref' in s || 'allOf' in s || 'anyOf' in s || 'oneOf' in s || s.type === undefined) {
    // Keep the annotations outside; the rest (Nest writes `{ type: 'object', allOf: [<ref>] }`) is the non-null branch.
    const inner: Json = {};
    for (const key of Object.keys(s)) {
      if (ANNOTATIONS.includes(key)) continue;
      inner[key] = s[key];
      delete s[key];
    }
    const onlyRef =
      Array.isArray(inner.allOf) && inner.allOf.length === 1 && Object.keys(inner).every((k) => k === 'allOf' || k === 'type');
    s.anyOf = [onlyRef ? (inner.allOf as unknown[])[0] : inner, { type: 'null' }];
    return;
  }
  const types = Array.isArray(s.type) ? (s.type as unknown[]) : [s.type];
  if (!types.includes('null')) s.type = [...types, 'null'];
  if (Array.isArray(s.enum) && !s.enum.includes(null)) s.enum = [...(s.enum as unknown[]), null];
}
