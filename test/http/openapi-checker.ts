// Checks real responses against the OpenAPI document: a documented status and content type, a body
// that validates against the documented schema (ajv, JSON Schema 2020-12, the document's dialect),
// and the headers documented as required.
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response } from 'supertest';

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export type Json = Record<string, any>;
export type Method = 'get' | 'post' | 'delete';

const DOC_ID = 'https://threatgate.invalid/openapi.json';

/** Escapes one JSON pointer segment for use in a `$ref` URI fragment. */
const pointerSegment = (segment: string) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

export class DocumentChecker {
  readonly seen = new Set<string>();
  private readonly ajv = addFormats(new Ajv2020({ allErrors: true, strict: true, strictRequired: false }));
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly doc: Json) {
    // The document is the root of the schemas' `#/components/...` references. Its own top-level
    // fields are declared as keywords without meaning; the schemas within stay in strict mode.
    this.ajv.addVocabulary(['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs']);
    this.ajv.addSchema(doc, DOC_ID);
  }

  /** Follows a local `$ref` of the document: [the object, its pointer segments]. */
  private resolve(value: Json, segments: string[]): [Json, string[]] {
    while (typeof value?.$ref === 'string') {
      const ref = value.$ref as string;
      assert.ok(ref.startsWith('#/'), `not a local $ref: ${ref}`);
      segments = ref.slice(2).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      value = segments.reduce((node: Json, key) => node?.[key], this.doc);
      assert.ok(value !== undefined, `dangling $ref ${ref}`);
    }
    return [value, segments];
  }

  private validator(segments: string[]): ValidateFunction {
    const ref = `${DOC_ID}#/${segments.map(pointerSegment).join('/')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  private validate(segments: string[], value: unknown, what: string): void {
    const validate = this.validator(segments);
    assert.ok(validate(value), `${what} does not match the document: ${this.ajv.errorsText(validate.errors, { separator: '\n' })}`);
  }

  /** Asserts that `res`, the answer to `method template`, is what the document says it may be. */
  check(res: Response, template: string, method: Method): void {
    const operation = this.doc.paths[template]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${template} is not in the document`);
    const label = `${method.toUpperCase()} ${template} -> ${res.status}`;
    const documented = operation.responses[String(res.status)];
    assert.ok(documented, `${label} is not documented (body: ${res.text?.slice(0, 300)})`);
    this.seen.add(`${method} ${template} ${res.status}`);
    const [response, at] = this.resolve(documented, ['paths', template, method, 'responses', String(res.status)]);

    const contentType = res.headers['content-type'] as string | undefined;
    const mediaTypes = Object.keys(response.content ?? {});
    if (mediaTypes.length === 0) assert.equal(res.text ?? '', '', `${label}: a body where none is documented`);
    else {
      assert.ok(contentType, `${label}: no Content-Type`);
      // TAXII types are compared verbatim (clients do); `application/json` is always sent with charset=utf-8.
      const text = (m: string) => m === 'text/plain' || m === 'text/csv';
      const mediaType = mediaTypes.find(
        (m) => m === contentType || (m === 'application/json' && contentType === 'application/json; charset=utf-8') || (text(m) && contentType.startsWith(`${m}; charset=utf-8`)),
      );
      assert.ok(mediaType, `${label}: Content-Type ${contentType} is not one of ${mediaTypes.join(', ')}`);
      const body = text(mediaType) ? res.text : JSON.parse(res.text);
      this.validate([...at, 'content', mediaType, 'schema'], body, `${label} body`);
    }

    for (const [name, value] of Object.entries(response.headers ?? {})) {
      const [header, headerAt] = this.resolve(value as Json, [...at, 'headers', name]);
      const sent = res.headers[name.toLowerCase()] as string | undefined;
      if (sent === undefined) {
        assert.ok(!header.required, `${label}: required header ${name} is missing`);
        continue;
      }
      const parsed = header.schema?.type === 'integer' && /^-?\d+$/.test(sent) ? Number(sent) : sent;
      this.validate([...headerAt, 'schema'], parsed, `${label} header ${name}: ${sent}`);
    }
  }

  /** Every status of every operation, as `method template status`. */
  documented(): string[] {
    const all: string[] = [];
    for (const [template, item] of Object.entries(this.doc.paths as Json)) {
      for (const method of ['get', 'post', 'delete'] as const) {
        for (const status of Object.keys(item[method]?.responses ?? {})) all.push(`${method} ${template} ${status}`);
      }
    }
    return all;
  }
}
