// JSON Schema 2020-12 (the dialect of OpenAPI 3.1) from zod: every schema of the OpenAPI document is written by this one writer.
import { z } from 'zod';

export type Json = Record<string, unknown>;

export const JSON_TYPE = 'application/json';

/** Where the document keeps its named schemas. */
export const schemaRef = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** Ids given to the schemas written in place, so one call of z.toJSONSchema writes them all. */
const INLINE = 'inline-';

/**
 * Collects the zod schemas of one document, then writes them at once: a named schema becomes
 * `#/components/schemas/<name>` and every use of it a `$ref` there; any other schema is written in
 * place. `io` is `input` for what a client sends (a defaulted field is optional) and `output` for
 * what the server answers.
 */
export class JsonSchemaWriter {
  private readonly registry = z.registry<{ id: string }>();
  private readonly names = new Map<z.ZodType, string>();
  private readonly inline = new Map<z.ZodType, { id: string; places: Json[] }>();

  constructor(private readonly io: 'input' | 'output') {}

  /** Gives `schema` a name under components/schemas; call before any use of it. */
  name(name: string, schema: z.ZodType): void {
    if (this.names.has(schema) || [...this.names.values()].includes(name)) throw new Error(`OpenAPI schema ${name} is named twice`);
    this.names.set(schema, name);
    this.registry.add(schema, { id: name });
  }

  /** The schema at one place of the document: a `$ref` to a named one, else an object filled in by `write`. */
  use(schema: z.ZodType): Json {
    const name = this.names.get(schema);
    if (name !== undefined) return schemaRef(name);
    let entry = this.inline.get(schema);
    if (entry === undefined) {
      entry = { id: `${INLINE}${this.inline.size}`, places: [] };
      this.registry.add(schema, { id: entry.id });
      this.inline.set(schema, entry);
    }
    const place: Json = {};
    entry.places.push(place);
    return place;
  }

  /** Writes every schema: fills the places `use` handed out and answers the named schemas. */
  write(): Record<string, Json> {
    const { schemas } = z.toJSONSchema(this.registry, {
      target: 'draft-2020-12',
      io: this.io,
      unrepresentable: 'throw',
      uri: (id) => `#/components/schemas/${id}`,
    });
    const written = new Map<string, Json>();
    for (const [id, schema] of Object.entries(schemas)) {
      const { $schema: _dialect, $id: _id, ...rest } = schema as Json;
      written.set(id, rest);
    }
    // A schema written in place that another schema uses is written out there too, never referenced.
    const expand = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(expand);
      if (value === null || typeof value !== 'object') return value;
      const ref = (value as Json).$ref;
      if (typeof ref === 'string' && ref.startsWith(`#/components/schemas/${INLINE}`)) return expand(written.get(ref.slice('#/components/schemas/'.length)));
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, expand(inner)]));
    };
    for (const { id, places } of this.inline.values()) {
      for (const place of places) Object.assign(place, expand(written.get(id)));
    }
    const named: Record<string, Json> = {};
    for (const name of this.names.values()) named[name] = expand(written.get(name)) as Json;
    return named;
  }
}
