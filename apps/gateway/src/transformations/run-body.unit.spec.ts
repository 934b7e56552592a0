import 'reflect-metadata';
import { validateRunBody } from './run-body';
import { CreateFileRunDto, CreateRawRunDto, FILE_RUN_SCALARS, RAW_RUN_SCALARS } from './transformation.dto';

/** The members @nestjs/swagger documents for a DTO (what a caller may send), from its metadata (DECORATORS.API_MODEL_PROPERTIES_ARRAY). */
const documented = (cls: object): string[] =>
  ((Reflect.getMetadata('swagger/apiModelPropertiesArray', (cls as { prototype: object }).prototype) as string[]) ?? []).map((p) =>
    p.replace(/^:/, ''),
  );

describe('validateRunBody', () => {
  it.each([
    ['file', CreateFileRunDto, FILE_RUN_SCALARS],
    ['raw', CreateRawRunDto, RAW_RUN_SCALARS],
  ] as const)('knows every documented member of the %s request: its scalars, metadata and column_labels', (_name, cls, scalars) => {
    expect([...documented(cls)].sort()).toEqual([...scalars, 'metadata', 'column_labels'].sort());
  });

  it('keeps metadata and column_labels as parsed, members named like Object.prototype included', async () => {
    const body = JSON.parse(
      '{"schema_id":"3fc78df8-476c-4edf-8ab7-a0b2929f6187","filename":"a.csv","metadata":{"constructor":{"__proto__":{"x":1}},"toString":"t"},"column_labels":{"valueOf":"v"}}',
    ) as Record<string, unknown>;
    const { value, errors } = await validateRunBody(CreateFileRunDto, FILE_RUN_SCALARS, body);
    expect(errors).toEqual({});
    expect(value.metadata).toBe(body.metadata);
    expect(value.column_labels).toBe(body.column_labels);
    expect(JSON.stringify(value.metadata)).toBe('{"constructor":{"__proto__":{"x":1}},"toString":"t"}');
  });

  it('reports a body that is not an object on `body`', async () => {
    expect((await validateRunBody(CreateRawRunDto, RAW_RUN_SCALARS, [1])).errors).toEqual({
      body: ['The request body must be a JSON object.'],
    });
  });
});
