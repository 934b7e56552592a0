import {
  ADMIN_TOKEN,
  PEOPLE_FIELDS,
  call,
  httpFetch,
  reviewApi,
  setupOrganization,
  startService,
  upload,
  waitForRun,
  type Service,
} from '../support/service-harness';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Request bodies hold caller data whose member names are anything JSON allows: `constructor`,
 * `__proto__`, `toString` are data, kept and echoed exactly. Bodies are bounded in shape
 * (32 levels of nesting, 1000 object keys) with a 422 naming the offending path.
 */

/**
 * Metadata whose member names are those of Object.prototype, at several depths, written as
 * JSON.stringify writes it (so "byte for byte" is a string comparison). Raw text: a JS
 * object literal would turn `__proto__` into a prototype instead of a member.
 */
const HOSTILE_METADATA =
  '{"constructor":{"prototype":{"polluted":true}},"__proto__":{"isAdmin":true,"constructor":"x"},"toString":"x",' +
  '"valueOf":{"list":[{"hasOwnProperty":1,"__defineGetter__":null,"__proto__":[1,{"__proto__":{}}]}]},' +
  '"nested":{"deep":{"constructor":{"name":"y"},"isPrototypeOf":false}},"text":"ü \\" \\\\","n":-1.5}';

/** `levels` objects nested in each other, the innermost holding 1. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** An object with `count` members. */
const manyKeys = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',')}}`;

describe('request validation: data keys and body shape', () => {
  let svc: Service;
  let org: Awaited<ReturnType<typeof setupOrganization>>;
  let providerId: string;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    svc = await startService();
    org = await setupOrganization(svc, {
      ...PEOPLE_FIELDS,
      constructor: { description: 'A field named constructor', data_type: 'string', is_required: false },
    });
    const provider = await call(`${svc.baseUrl}/admin/v1/organizations/${org.orgId}/providers`, {
      token: ADMIN_TOKEN,
      body: { name: 'P', provider: 'openai', model: 'gpt-x' },
    });
    providerId = provider.body.data.id;
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await svc?.stop();
  });
  const url = (p: string) => `${svc.baseUrl}${p}`;
  const post = (path: string, raw: string) => call(url(path), { token: org.apiKey, raw });
  const fileBody = (extra: string) => `{"schema_id":"${org.schemaId}","filename":"people.csv"${extra}}`;
  /** The answer's text, unparsed. */
  const rawText = async (path: string) => {
    const res = await httpFetch(url(path), { headers: { authorization: `Bearer ${org.apiKey}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  afterEach(() => {
    // Nothing a request sent may have reached Object.prototype.
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps metadata members named constructor, __proto__, toString, ... at any depth, byte for byte, in the run and its webhook', async () => {
    const created = await post(
      '/v1/transformations/file',
      fileBody(`,"notify_url":"${receiver.url}/hooks","metadata":${HOSTILE_METADATA}`),
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await rawText(`/v1/transformations/${id}`)).toContain(`"metadata":${HOSTILE_METADATA},`);

    // Through the pipeline and out in the webhook payload: the review is canceled, which sends one.
    expect((await upload(created.body, 'email,first_name\nann@x.io,Ann\n')).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, id, (r) => r.review_state === 'active');
    expect((await reviewApi(ready.review_url).cancel()).status).toBe(200);
    const [delivery] = await receiver.waitFor(id, 1);
    expect(delivery.body).toContain(`"metadata":${HOSTILE_METADATA},`);
    expect(await rawText(`/v1/transformations/${id}`)).toContain(`"metadata":${HOSTILE_METADATA},`);
  });

  it('keeps them in raw runs too, and a metadata of only an Object method name is not emptied', async () => {
    for (const metadata of [HOSTILE_METADATA, '{"toString":"x"}', '{"constructor":"x"}', '{"__proto__":null}', '{}']) {
      const created = await post(
        '/v1/transformations/raw',
        `{"schema_id":"${org.schemaId}","provider_id":"${providerId}","content":"Ann","dry_run":true,"metadata":${metadata}}`,
      );
      expect({ metadata, status: created.status }).toEqual({ metadata, status: 201 });
      expect(await rawText(`/v1/transformations/${created.body.id}`)).toContain(`"metadata":${metadata},`);
    }
  });

  it('refuses metadata with a lone surrogate in a value or a key, at any depth (422); pairs, emoji and control characters are data', async () => {
    for (const metadata of ['{"a":"\\ud800"}', '{"list":[{"deep":"x\\udc00y"}]}', '{"\\udbff":1}']) {
      const res = await post('/v1/transformations/file', fileBody(`,"metadata":${metadata}`));
      expect({ metadata, status: res.status, fields: res.body.error?.fields }).toEqual({
        metadata,
        status: 422,
        fields: { metadata: ['The metadata field must not contain lone surrogates (text that is not valid Unicode).'] },
      });
    }
    const fine = '{"emoji":"\\ud83d\\ude00","tab":"a\\tb","\\ud83c\\udf89":["\\u0000"]}';
    const created = await post('/v1/transformations/file', fileBody(`,"metadata":${fine}`));
    expect(created.status).toBe(201);
    expect(JSON.parse(await rawText(`/v1/transformations/${created.body.id}`)).metadata).toEqual({
      emoji: '\u{1F600}',
      tab: 'a\tb',
      '\u{1F389}': ['\u0000'],
    });
  });

  it("refuses a raw run's content with a lone surrogate (422 on content, as metadata); a whole pair (an emoji) is text", async () => {
    const raw = (content: string) =>
      post(
        '/v1/transformations/raw',
        `{"schema_id":"${org.schemaId}","provider_id":"${providerId}","content":"${content}","dry_run":true}`,
      );
    for (const content of ['Ann \\ud83d', '\\ude00 Bo', 'a\\udbffb']) {
      const res = await raw(content);
      expect({ content, status: res.status, code: res.body.error?.code, fields: res.body.error?.fields }).toEqual({
        content,
        status: 422,
        code: 'validation_failed',
        fields: { content: ['The content field must not contain lone surrogates (text that is not valid Unicode).'] },
      });
    }
    expect((await raw('Ann \\ud83d\\ude00')).status).toBe(201);
  });

  it('refuses an admin body that is not an object with 422 on body alone: nothing is made or changed', async () => {
    const o = `/admin/v1/organizations/${org.orgId}`;
    const calls: [string, string][] = [
      ['POST', '/admin/v1/organizations'],
      ['POST', `${o}/api-keys`],
      ['PUT', `${o}/webhook`],
      ['PUT', `${o}/quota`],
      ['POST', `${o}/schemas`],
      ['PUT', `${o}/schemas/${org.schemaId}`],
      ['POST', `${o}/providers`],
      ['PUT', `${o}/providers/${providerId}`],
      ['POST', `${o}/invitations`],
    ];
    const keysBefore = (await call(url(`${o}/api-keys`), { token: ADMIN_TOKEN })).body.data.length;
    for (const [method, path] of calls)
      for (const raw of ['[]', 'null', '"x"', '7']) {
        const res = await call(url(path), { method, token: ADMIN_TOKEN, raw });
        expect([method, path, raw, res.status, res.body.error?.fields]).toEqual([
          method,
          path,
          raw,
          422,
          { body: ['The request body must be a JSON object.'] },
        ]);
      }
    expect((await call(url(`${o}/api-keys`), { token: ADMIN_TOKEN })).body.data.length).toBe(keysBefore);
    expect((await call(url(`/v1/schemas/${org.schemaId}`), { token: org.apiKey })).body.data.fields).toHaveProperty('email');
  });

  it('column_labels keys must be own fields of the schema: toString, __proto__, hasOwnProperty are not (422, not 500)', async () => {
    const res = await post(
      '/v1/transformations/file',
      fileBody(',"column_labels":{"toString":"T","__proto__":"P","hasOwnProperty":null,"valueOf":"V","email":"Mail"}'),
    );
    expect(res.status).toBe(422);
    // Parsed from the text: the field named `column_labels.__proto__` is a member of `fields` like the others.
    expect(Object.keys(res.body.error.fields).sort()).toEqual([
      'column_labels.__proto__',
      'column_labels.hasOwnProperty',
      'column_labels.toString',
      'column_labels.valueOf',
    ]);
    expect(res.body.error.fields['column_labels.toString']).toEqual(['"toString" is not a field of the selected schema.']);
    // A schema that has a field named constructor takes a label for it.
    expect((await post('/v1/transformations/file', fileBody(',"column_labels":{"constructor":"C","email":null}'))).status).toBe(201);
  });

  it('column_labels and metadata of the wrong type are 422 on their own name', async () => {
    const res = await post('/v1/transformations/file', fileBody(',"metadata":[{"constructor":1}],"column_labels":"x"'));
    expect(res).toMatchObject({
      status: 422,
      body: {
        error: {
          fields: { metadata: ['The metadata field must be an object.'], column_labels: ['The column labels field must be an object.'] },
        },
      },
    });
    const labels = await post('/v1/transformations/file', fileBody(',"column_labels":{"email":{"constructor":"x"}}'));
    expect(labels.body.error.fields).toEqual({ 'column_labels.email': ['A column label must be a string or null.'] });
  });

  it('a blank column label is taken (the spec: a string or null) and leaves the review column its schema label; the labels are checked even when the schema_id is not found', async () => {
    const created = await post('/v1/transformations/file', fileBody(`,"column_labels":{"email":"  ","first_name":"Given name"}`));
    expect(created.status).toBe(201);
    expect((await upload(created.body, 'email,first_name\nann@x.io,Ann\n')).status).toBe(200);
    const ready = await waitForRun(svc, org.apiKey, created.body.id, (r) => r.review_state === 'active');
    const labels = (await reviewApi(ready.review_url).state()).body.fields.map((f: { name: string; label: string }) => [f.name, f.label]);
    expect(labels).toEqual(
      expect.arrayContaining([
        ['email', 'Email'],
        ['first_name', 'Given name'],
      ]),
    );
    const unknownSchema = await post(
      '/v1/transformations/file',
      JSON.stringify({ schema_id: '00000000-0000-4000-8000-000000000000', filename: 'a.csv', column_labels: { email: 5 } }),
    );
    expect(unknownSchema.body.error.fields).toEqual({
      schema_id: ['The selected schema id is invalid.'],
      'column_labels.email': ['A column label must be a string or null.'],
    });
  });

  it('a column label with control characters or a direction override is 422, as a schema label is; the marks languages need pass', async () => {
    for (const label of ['Mail\u202Ereversed', 'Two\nlines', 'Tab\there', 'Iso\u2066late\u2069']) {
      const res = await post('/v1/transformations/file', fileBody(`,"column_labels":{"email":${JSON.stringify(label)}}`));
      expect({ label, status: res.status, fields: res.body.error?.fields }).toEqual({
        label,
        status: 422,
        fields: {
          'column_labels.email': ['A column label must not contain control characters, text direction overrides or lone surrogates.'],
        },
      });
    }
    // A zero-width non-joiner (Persian) and a right-to-left mark stay.
    const persian = await post(
      '/v1/transformations/file',
      fileBody(',"column_labels":{"email":"\u0645\u06cc\u200c\u0634\u0648\u062f \u200fMail"}'),
    );
    expect(persian.status).toBe(201);
  });

  it('a filename with a control character or a direction override is 422; one in any script passes', async () => {
    for (const filename of ['a\u0000b.csv', 'list\u202Evsc.csv', 'two\nlines.csv', '\ud800.csv']) {
      const res = await post('/v1/transformations/file', `{"schema_id":"${org.schemaId}","filename":${JSON.stringify(filename)}}`);
      expect({ filename, status: res.status, fields: res.body.error?.fields }).toEqual({
        filename,
        status: 422,
        fields: { filename: ['The filename field must not contain control characters, text direction overrides or lone surrogates.'] },
      });
    }
    const arabic = await post(
      '/v1/transformations/file',
      `{"schema_id":"${org.schemaId}","filename":"\u0639\u0645\u0644\u0627\u0621.csv"}`,
    );
    expect(arabic.status).toBe(201);
  });

  it('scalar members given objects with hostile member names fail their own rule (422, not 500)', async () => {
    const res = await post(
      '/v1/transformations/file',
      '{"schema_id":{"constructor":"x"},"filename":{"constructor":{}},"dry_run":{"__proto__":{"x":1}},' +
        '"notify_url":{"toString":1},"locale":["constructor"],"appearance":{"valueOf":1},"input_has_header":{"constructor":null}}',
    );
    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual({
      schema_id: ['The schema id field must be a valid UUID.'],
      filename: ['The filename field must be a string.'],
      dry_run: ['The dry run field must be true or false.'],
      notify_url: ['The notify url field must be a valid URL.'],
      locale: ['The locale field must be a string.'],
      appearance: ['The selected appearance is invalid.'],
      input_has_header: ['The input has header field must be true or false.'],
    });
  });

  it('null is refused where the spec types a member without "or null" (dry_run, output_format), and taken where it allows it', async () => {
    const res = await post('/v1/transformations/file', fileBody(',"dry_run":null,"output_format":null'));
    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual({
      dry_run: ['The dry run field must be true or false.'],
      output_format: ['The selected output format is invalid.'],
    });
    const nullable = await post(
      '/v1/transformations/file',
      fileBody(',"locale":null,"appearance":null,"input_has_header":null,"notify_url":null'),
    );
    expect(nullable.status).toBe(201);
  });

  it('a URL not written as scheme://host, or with a backslash, is 422 on each URL field and on the organization webhook (it was taken, and the sender refused it)', async () => {
    const host = new URL(receiver.url).host;
    const mended = [
      `http:${host}/hooks`,
      `http:/${host}/hooks`,
      `http:///${host}/hooks`,
      `http:\\\\${host}\\hooks`,
      `http://${host}\\hooks`,
    ];
    for (const field of ['notify_url', 'success_callback', 'cancel_callback']) {
      for (const value of mended) {
        const res = await post('/v1/transformations/file', fileBody(`,${JSON.stringify(field)}:${JSON.stringify(value)}`));
        expect({ field, value, status: res.status, fields: res.body.error?.fields }).toEqual({
          field,
          value,
          status: 422,
          fields: { [field]: [`The ${field.replace(/_/g, ' ')} field must be a valid URL.`] },
        });
      }
    }
    for (const value of mended) {
      const res = await call(url(`/admin/v1/organizations/${org.orgId}/webhook`), {
        method: 'PUT',
        token: ADMIN_TOKEN,
        body: { url: value },
      });
      expect({ value, status: res.status, fields: res.body.error?.fields }).toEqual({
        value,
        status: 422,
        fields: { url: ['The url field must be a valid URL.'] },
      });
    }
    expect((await post('/v1/transformations/file', fileBody(`,"notify_url":${JSON.stringify(`${receiver.url}/hooks`)}`))).status).toBe(201);
  });

  it('ignores unknown top-level members, whatever their names and contents', async () => {
    const res = await post(
      '/v1/transformations/file',
      fileBody(',"__proto__":{"schema_id":"nope","isAdmin":true},"constructor":{"constructor":{"prototype":{}}},"toString":1'),
    );
    expect(res.status).toBe(201);
  });

  it('bounds nesting at 32 levels (the body is level 1); deeper is 422 naming the first container too deep', async () => {
    // metadata is level 2: 31 nested objects reach level 32, 32 reach level 33.
    expect((await post('/v1/transformations/file', fileBody(`,"metadata":${nested(31)}`))).status).toBe(201);
    const tooDeep = `metadata${'.a'.repeat(31)}`;
    for (const levels of [32, 5000]) {
      const res = await post('/v1/transformations/file', fileBody(`,"metadata":${nested(levels)}`));
      expect(res).toMatchObject({ status: 422, body: { error: { code: 'validation_failed', type: 'validation' } } });
      expect(res.body.error.fields).toEqual({ [tooDeep]: ['Objects and arrays must not be nested more than 32 levels deep.'] });
    }
    // Arrays count as levels too.
    const arrays = await post('/v1/transformations/raw', `{"metadata":{"list":${'['.repeat(40)}${']'.repeat(40)}}}`);
    expect(Object.keys(arrays.body.error.fields)).toEqual([`metadata.list${'.0'.repeat(30)}`]);
  });

  it('bounds the object keys of a run request at 2000 (a label for each of 1,000 fields, and room); more is 422 naming the object', async () => {
    // 3 members at the top (schema_id, filename, metadata) + 1997 = 2000.
    expect((await post('/v1/transformations/file', fileBody(`,"metadata":${manyKeys(1997)}`))).status).toBe(201);
    const res = await post('/v1/transformations/file', fileBody(`,"metadata":${manyKeys(1998)}`));
    expect(res).toMatchObject({ status: 422, body: { error: { code: 'validation_failed' } } });
    expect(res.body.error.fields).toEqual({ metadata: ['The request body must not have more than 2000 object keys in total.'] });
    // Named by its path even when that path is `__proto__`.
    const proto = await post('/v1/transformations/file', fileBody(`,"__proto__":${manyKeys(2000)}`));
    expect(proto.status).toBe(422);
    expect(Object.hasOwn(proto.body.error.fields, '__proto__')).toBe(true);
  });

  it('refuses a number past what a double holds (1e400 parsed as Infinity was echoed as null in metadata), naming it', async () => {
    const res = await post('/v1/transformations/file', fileBody(',"metadata":{"ok":1.5e308,"e":1e400}'));
    expect([res.status, res.body.error.fields]).toEqual([
      422,
      { 'metadata.e': ['Numbers must be within what a double holds (about ±1.8e308).'] },
    ]);
    const fine = await post('/v1/transformations/file', fileBody(',"metadata":{"ok":1.5e308,"tiny":-1e-400}'));
    expect(fine.status).toBe(201);
  });

  it('checks the credential first: a body past the limits without a key is 401', async () => {
    expect((await call(url('/v1/transformations/file'), { raw: fileBody(`,"metadata":${nested(100)}`) })).status).toBe(401);
  });

  it('refuses __proto__ as a schema field name (it would become a prototype, not a field); constructor is a field like any other', async () => {
    const res = await call(url(`/admin/v1/organizations/${org.orgId}/schemas`), {
      token: ADMIN_TOKEN,
      raw: '{"name":"P","fields":{"__proto__":{"description":"d","data_type":"string","is_required":false}}}',
    });
    expect(res.status).toBe(422);
    expect(Object.hasOwn(res.body.error.fields, 'fields.__proto__')).toBe(true);
    const schema = await call(url(`/v1/schemas/${org.schemaId}`), { token: org.apiKey });
    expect(Object.keys(schema.body.data.fields)).toContain('constructor');
  });

  it('bounds admin bodies the same way', async () => {
    const admin = (path: string, raw: string, method = 'POST') =>
      call(url(`/admin/v1/organizations${path}`), { token: ADMIN_TOKEN, raw, method });
    const deep = await admin(
      `/${org.orgId}/schemas`,
      `{"name":"Deep","fields":{"x":{"description":"x","data_type":"string","is_required":false,"transformations":${nested(40)}}}}`,
    );
    expect(deep.status).toBe(422);
    expect(Object.keys(deep.body.error.fields)).toEqual([`fields.x.transformations${'.a'.repeat(29)}`]);
    const many = await admin('', `{"name":"Many","extra":${manyKeys(1000)}}`);
    expect(many.body.error.fields).toEqual({ extra: ['The request body must not have more than 1000 object keys in total.'] });
    expect((await admin(`/${org.orgId}/webhook`, `{"url":null,"x":${nested(40)}}`, 'PUT')).status).toBe(422);
  });

  it('a schema holds up to 1,000 fields of every option (under 1,000 keys a body held about 120), and says so past that', async () => {
    const definition = {
      description: 'A column',
      data_type: 'string',
      is_required: false,
      label: 'Column',
      format: null,
      transformations: { trim_whitespace: { enabled: true }, uppercase: { enabled: false }, lowercase: { enabled: false } },
    };
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`column_${i}`, definition]));
    const schemas = `/admin/v1/organizations/${org.orgId}/schemas`;
    const wide = await call(url(schemas), { token: ADMIN_TOKEN, body: { name: 'Wide', fields: fields(1000) } });
    expect(wide.status).toBe(201);
    expect(Object.keys(wide.body.data.fields)).toHaveLength(1000);
    const tooWide = await call(url(schemas), { token: ADMIN_TOKEN, body: { name: 'Too wide', fields: fields(1001) } });
    expect([tooWide.status, tooWide.body.error.fields]).toEqual([422, { fields: ['A schema has at most 1000 fields.'] }]);
    // A run of that schema may label every one of its 1,000 fields (a probe could label 997 under 1,000 keys).
    const labels = Object.fromEntries(Object.keys(fields(1000)).map((name) => [name, `Label ${name}`]));
    const labelled = await call(url('/v1/transformations/file'), {
      token: org.apiKey,
      body: { schema_id: wide.body.data.id, filename: 'wide.csv', column_labels: labels },
    });
    expect(labelled.status).toBe(201);
    // Other bodies keep their 1,000 keys.
    const admin = await call(url('/admin/v1/organizations'), { token: ADMIN_TOKEN, raw: `{"name":"Many","extra":${manyKeys(999)}}` });
    expect(admin.status).toBe(422);
  });
});
