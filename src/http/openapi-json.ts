// The building blocks of the hand-written OpenAPI document (openapi-document.ts, openapi-admin.ts): JSON Schema 2020-12 pieces and references.
export type Json = Record<string, unknown>;

export const JSON_TYPE = 'application/json';

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
export const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });
export const nullable = (schema: Json): Json => ({ anyOf: [schema, { type: 'null' }] });
/** An object whose properties are all required and which has no others. */
export const closed = (properties: Record<string, Json>, extra: Json = {}): Json => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  additionalProperties: false,
  ...extra,
});
export const integer = (description?: string): Json => ({ type: 'integer', ...(description ? { description } : {}) });
export const string = (description?: string): Json => ({ type: 'string', ...(description ? { description } : {}) });
