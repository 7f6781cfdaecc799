import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { buildHarness, type Harness, suiteTeardown, type Tenant } from '../helpers/app.js';

// What a client generator and Swagger UI read from the document: metadata, tags, headers, the
// 503 answer, and examples that are true (they follow their schemas, and the request examples
// are what the API actually accepts: "Try it out" sends the first one).

// ajv-formats' CommonJS default export, typed as the function it is.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type Media = { schema: Record<string, unknown>; examples?: Record<string, { summary: string; value: unknown }> };
type Operation = {
  operationId: string;
  tags: string[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, Media> }>;
};

describe('OpenAPI document for generated clients and Swagger UI', () => {
  let h: Harness;
  let acme: Tenant;
  let doc: {
    info: Record<string, any>;
    tags?: Array<{ name: string; description?: string }>;
    paths: Record<string, Record<string, Operation>>;
    components: unknown;
  };
  const teardown = suiteTeardown();
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

  before(async () => {
    h = await buildHarness(teardown);
    acme = await h.tenant('acme', ['incidents:write', 'products:write', 'products:read', 'compliance:read']);
    await h.products.addProduct('acme', 'RTR-100', { name: 'Router 100', gtin: '4006381333931', firmwareVersion: '2.4.1' });
    doc = (await h.request({ url: '/swagger/openapi.json', headers: { host: '127.0.0.1:8080' } })).json();
  });

  /** Validates against a schema of the document, resolving its #/components references. */
  function validator(schema: Record<string, unknown>) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    return ajv.compile({ ...schema, components: doc.components });
  }

  it('names a contact and a licence, and declares every tag it uses, with a description', () => {
    assert.ok(doc.info.contact?.name && (doc.info.contact.url || doc.info.contact.email));
    assert.ok(doc.info.license?.name);
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    for (const { op } of operations()) {
      for (const tag of op.tags) assert.ok(declared.get(tag), `tag ${tag} of ${op.operationId} is declared with a description`);
    }
  });

  it('every answer of every operation carries X-Request-Id; every operation documents 503 with Retry-After', () => {
    for (const { op } of operations()) {
      for (const [status, response] of Object.entries(op.responses))
        assert.ok(response.headers?.['X-Request-Id'], `${op.operationId} ${status}`);
      assert.ok(op.responses['503']?.headers?.['Retry-After'], `${op.operationId} 503`);
      assert.equal(
        (op.responses['503']?.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref,
        '#/components/schemas/Error',
      );
    }
  });

  it('every request body and every answer has examples, and each follows its schema', () => {
    for (const { op } of operations()) {
      const media = [
        ...Object.entries(op.requestBody?.content ?? {}).map(([type, m]) => [`request ${type}`, m] as const),
        ...Object.entries(op.responses).flatMap(([status, r]) =>
          Object.entries(r.content ?? {}).map(([type, m]) => [`${status} ${type}`, m] as const),
        ),
      ];
      assert.ok(media.length > 0);
      for (const [where, m] of media) {
        const examples = Object.entries(m.examples ?? {});
        assert.ok(examples.length > 0, `${op.operationId} ${where} has examples`);
        const validate = validator(m.schema);
        for (const [name, example] of examples) {
          assert.ok(example.summary, `${op.operationId} ${where} ${name} has a summary`);
          assert.ok(validate(example.value), `${op.operationId} ${where} ${name}: ${JSON.stringify(validate.errors)}`);
        }
      }
    }
  });

  it('the error examples name the status they are listed under', async () => {
    const { ERROR_STATUS } = await import('../../src/errors.js');
    for (const { op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        for (const example of Object.values(response.content?.['application/json']?.examples ?? {})) {
          const code = (example.value as { code: keyof typeof ERROR_STATUS }).code;
          assert.equal(String(ERROR_STATUS[code]), status, `${op.operationId} ${status}: ${code}`);
        }
      }
    }
  });

  it('the request examples are what the API accepts: each one sent as is is stored, and answers like its example', async () => {
    const url = (path: string) => `/api/v1/external${path.replace('{sku}', 'RTR-100')}`;
    let sent = 0;
    for (const { path, method, op } of operations()) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        for (const [name, example] of Object.entries(media.examples ?? {})) {
          const res = await h.request({
            method: method.toUpperCase() as 'POST',
            url: url(path),
            key: acme.key,
            headers: { 'content-type': type },
            payload: JSON.stringify(example.value),
          });
          assert.ok([200, 201].includes(res.statusCode), `${op.operationId} ${type} ${name}: ${res.statusCode} ${res.body}`);
          const documented = op.responses[String(res.statusCode)]!.content!['application/json']!;
          assert.ok(validator(documented.schema)(res.json()), `${op.operationId} ${name}: the answer follows its schema`);
          const shapes = Object.values(documented.examples!).map((e) =>
            Object.keys(e.value as object)
              .sort()
              .join(),
          );
          assert.ok(
            shapes.includes(Object.keys(res.json()).sort().join()),
            `${op.operationId} ${name}: an answer example has the answer's fields`,
          );
          sent++;
        }
      }
    }
    assert.ok(sent >= 4, `${sent} request examples sent`);
  });
});
