// The OpenAPI 3.1 description of every HTTP route, generated from the surfaces' declarations and zod schemas (docs/interface.md is the
// reference it follows) and checked against real responses by test/http/openapi.test.ts and by schemathesis (interop/schemathesis).
// Values the config decides (plans, page sizes, collections) come from the config the server runs with.
import type { Config } from '../config.js';
import type { ContentDeclaration, HeaderDeclaration, OpenApiSurface, OperationDeclaration, ParameterDeclaration, ResponseDeclaration } from './openapi-declarations.js';
import { JsonSchemaWriter, type Json } from './openapi-json.js';
import { probesOpenApi } from './openapi-probes.js';
import { sharedOpenApi } from './openapi-shared.js';

function planTable(config: Config): string {
  const rows = Object.entries(config.plans).map(
    ([name, p]) => `| \`${name}\` | ${p.perSecond} | ${p.perDay} | ${p.perMonth} | ${p.pages} | ${p.taxii === 'all' ? 'every collection' : 'the free test collection only'} |`,
  );
  return ['| plan | per second | per day | per 30 days | links pages per query | TAXII |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

function info(config: Config, version: string): Json {
  return {
    title: 'threatgate',
    version,
    summary: 'Threat-intelligence lookups and a TAXII 2.1 gateway.',
    description: [
      'The lookup API (`/api/threat.php`, `/api/feed.php`, `/api/indicator.php`, and `/api/info.php`, which stands for any of them) and the questions across the store (`/api/explore.php`, `/api/search.php`, which also answer CSV) answer JSON (`application/json; charset=utf-8`); the TAXII 2.1 gateway (`/taxii2/`) answers exactly `application/taxii+json;version=2.1`, errors included. Everything is read with GET (HEAD gives the headers alone); other methods on a known path are 405 with `Allow`. A parameter the service reads may be given once; a repeated one is a 400 (a repeated TAXII `key` is a 401). docs/interface.md is the full reference.',
      '',
      '**Keys.** The lookup API takes an optional `key` query parameter: without one, requests run under the `anonymous` plan and are counted per client address; a key that is given but malformed, unknown or revoked is a 401. Every TAXII request needs a key: HTTP Basic with username `taxii2` and the key as password, or `?key=KEY&accept=...` for trying things out. An admin key (no plan) opens only the operator API (`/admin/api/`), and the other surfaces refuse it with 403. ' +
        `A client address that presents ${config.auth.failuresPerMinute} malformed, unknown or revoked keys within a minute (\`auth.failuresPerMinute\`, a sliding minute) gets a 429 with \`Retry-After\` for any key it presents until the oldest of them is a minute old.`,
      '',
      '**Rate limits.** Each plan has three fixed windows; a request must fit in all three, and the lookup API and the TAXII gateway share one budget per key. Counted responses carry `RateLimit`, `RateLimit-Policy` and `X-Requests-Remaining-Second|Day|Month`; a request over a limit is a 429 with `Retry-After`. The limits of this server:',
      '',
      planTable(config),
    ].join('\n'),
  };
}

/** Turns the declarations into the document's objects; every zod schema goes through one of the two writers. */
class DocumentWriter {
  readonly answers = new JsonSchemaWriter('output');
  readonly requests = new JsonSchemaWriter('input');

  content(declared: ContentDeclaration, writer: JsonSchemaWriter): Json {
    return Object.fromEntries(Object.entries(declared).map(([mediaType, schema]) => [mediaType, { schema: writer.use(schema) }]));
  }

  header(declared: HeaderDeclaration | string): Json {
    if (typeof declared === 'string') return { $ref: `#/components/headers/${declared}` };
    return { description: declared.description, ...(declared.required ? { required: true } : {}), schema: this.answers.use(declared.schema) };
  }

  response(declared: ResponseDeclaration | string): Json {
    if (typeof declared === 'string') return { $ref: `#/components/responses/${declared}` };
    const { description, headers, content, links } = declared;
    return {
      description,
      ...(headers ? { headers: Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, this.header(header)])) } : {}),
      ...(content ? { content: this.content(content, this.answers) } : {}),
      ...(links ? { links } : {}),
    };
  }

  parameter(declared: ParameterDeclaration): Json {
    const { name, in: place, description, schema, list, example, examples } = declared;
    return {
      name,
      in: place,
      required: place === 'path' ? true : (declared.required ?? false),
      description,
      schema: this.requests.use(schema),
      ...(list ? { style: 'form', explode: false } : {}),
      ...(example !== undefined ? { example } : {}),
      ...(examples ? { examples } : {}),
    };
  }

  operation(declared: OperationDeclaration): Json {
    const { tags, operationId, summary, description, security, parameters, requestBody, responses } = declared;
    return {
      tags,
      operationId,
      summary,
      description,
      security,
      ...(parameters ? { parameters: parameters.map((name) => ({ $ref: `#/components/parameters/${name}` })) } : {}),
      ...(requestBody ? { requestBody: { required: requestBody.required, content: this.content(requestBody.content, this.requests) } } : {}),
      responses: Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, this.response(response)])),
    };
  }
}

/** Each surface's entries of one kind merged into one object; a name two surfaces use is a mistake. */
function merged<T>(surfaces: readonly OpenApiSurface[], pick: (surface: OpenApiSurface) => Record<string, T> | undefined, what: string): Record<string, T> {
  const all: Record<string, T> = {};
  for (const surface of surfaces) {
    for (const [name, value] of Object.entries(pick(surface) ?? {})) {
      if (name in all) throw new Error(`OpenAPI ${what} ${name} is declared twice`);
      all[name] = value;
    }
  }
  return all;
}

/** The OpenAPI 3.1 document for a server running with `config`, its paths those of `surfaces` and of the probes. */
export function buildOpenApiDocument(config: Config, version: string, surfaces: readonly OpenApiSurface[]): Json {
  const all = [sharedOpenApi(), ...surfaces, probesOpenApi()];
  const writer = new DocumentWriter();
  const schemas = merged(all, (s) => s.schemas, 'schema');
  const requestSchemas = merged(all, (s) => s.requestSchemas, 'schema');
  for (const [name, schema] of Object.entries(schemas)) writer.answers.name(name, schema);
  for (const [name, schema] of Object.entries(requestSchemas)) {
    if (name in schemas) throw new Error(`OpenAPI schema ${name} is declared twice`);
    writer.requests.name(name, schema);
  }
  const mapped = <T>(entries: Record<string, T>, write: (value: T) => Json) => Object.fromEntries(Object.entries(entries).map(([name, value]) => [name, write(value)]));

  const paths: Record<string, Json> = {};
  for (const operation of all.flatMap((s) => s.operations)) {
    const item = (paths[operation.path] ??= {});
    if (operation.method in item) throw new Error(`OpenAPI operation ${operation.method.toUpperCase()} ${operation.path} is declared twice`);
    item[operation.method] = writer.operation(operation);
  }
  const parameters = mapped(merged(all, (s) => s.parameters, 'parameter'), (p) => writer.parameter(p));
  const headers = mapped(merged(all, (s) => s.headers, 'header'), (h) => writer.header(h));
  const responses = mapped(merged(all, (s) => s.responses, 'response'), (r) => writer.response(r));
  return {
    openapi: '3.1.0',
    info: info(config, version),
    tags: all.flatMap((s) => s.tags ?? []),
    paths,
    components: {
      securitySchemes: merged(all, (s) => s.securitySchemes, 'security scheme'),
      // Written last: every use above has been collected.
      schemas: { ...writer.answers.write(), ...writer.requests.write() },
      parameters,
      headers,
      responses,
    },
  };
}
