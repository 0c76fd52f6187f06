// JsonSchemaWriter and buildOpenApiDocument: zod schemas written once as JSON Schema 2020-12, named ones referenced, and a name declared twice refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { buildOpenApiDocument } from '../../src/http/openapi-document.js';
import { JsonSchemaWriter } from '../../src/http/openapi-json.js';
import { createTestContext } from '../helpers/test-app.js';

const Stamp = z.string().regex(/^\d{4}$/).describe('A year.');
const Row = z.strictObject({ id: z.int().min(1), seen: Stamp.nullable() });

describe('JsonSchemaWriter', () => {
  it('writes a named schema under its name, and each use of it as a $ref there', () => {
    const writer = new JsonSchemaWriter('output');
    writer.name('Stamp', Stamp);
    writer.name('Row', Row);
    const place = writer.use(Row);
    const named = writer.write();
    assert.deepEqual(place, { $ref: '#/components/schemas/Row' });
    assert.deepEqual(named.Stamp, { type: 'string', pattern: '^\\d{4}$', description: 'A year.' });
    assert.deepEqual((named.Row as any).properties.seen, { anyOf: [{ $ref: '#/components/schemas/Stamp' }, { type: 'null' }] });
    assert.equal((named.Row as any).additionalProperties, false);
    assert.equal('$schema' in named.Row!, false);
  });

  it('writes an unnamed schema in place, at every place it is used, and never as a $ref', () => {
    const writer = new JsonSchemaWriter('output');
    const list = z.array(Stamp).min(1);
    const first = writer.use(list);
    const second = writer.use(z.strictObject({ years: list }));
    writer.write();
    assert.deepEqual(first, { minItems: 1, type: 'array', items: { type: 'string', pattern: '^\\d{4}$', description: 'A year.' } });
    assert.deepEqual((second as any).properties.years, first);
    assert.doesNotMatch(JSON.stringify([first, second]), /\$ref/);
  });

  it('writes a defaulted field as optional for a request and as always there for an answer', () => {
    const body = z.strictObject({ entry: z.string(), dryRun: z.boolean().default(false) });
    const requests = new JsonSchemaWriter('input');
    const answers = new JsonSchemaWriter('output');
    const asSent = requests.use(body);
    const asAnswered = answers.use(body);
    requests.write();
    answers.write();
    assert.deepEqual(asSent.required, ['entry']);
    assert.deepEqual(asAnswered.required, ['entry', 'dryRun']);
  });

  it('refuses a name given twice', () => {
    const writer = new JsonSchemaWriter('output');
    writer.name('Stamp', Stamp);
    assert.throws(() => writer.name('Stamp', Row), /named twice/);
  });
});

describe('buildOpenApiDocument', () => {
  it('refuses two surfaces that declare one schema name or one operation', async () => {
    const ctx = await createTestContext({});
    try {
      const operation = { path: '/x', method: 'get' as const, operationId: 'getX', tags: [], summary: 'x', description: 'x', security: [], responses: { '200': { description: 'x' } } };
      assert.throws(() => buildOpenApiDocument(ctx.config, '0.0.0', [{ schemas: { Row }, operations: [] }, { schemas: { Row: Stamp }, operations: [] }]), /schema Row is declared twice/);
      assert.throws(() => buildOpenApiDocument(ctx.config, '0.0.0', [{ operations: [operation] }, { operations: [operation] }]), /GET \/x is declared twice/);
      const doc = buildOpenApiDocument(ctx.config, '0.0.0', [{ schemas: { Row }, operations: [{ ...operation, responses: { '200': { description: 'x', content: { 'application/json': Row } } } }] }]) as any;
      assert.deepEqual(doc.paths['/x'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Row' });
    } finally {
      await ctx.close();
    }
  });
});
