// What each surface declares for the OpenAPI document: its operations, parameters, headers, responses and schemas, every schema in zod.
import type { z } from 'zod';
import type { Json } from './openapi-json.js';

export type Method = 'get' | 'post' | 'delete';

/** Security requirements: any one of them lets a request in; `{}` is none needed. */
export type Security = Record<string, string[]>[];

/** A query or path parameter; `schema` is the value it stands for. */
export interface ParameterDeclaration {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  description: string;
  schema: z.ZodType;
  /** A comma-separated list of values (`style: form`, `explode: false`). */
  list?: boolean;
  example?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
}

export interface HeaderDeclaration {
  description: string;
  required?: boolean;
  schema: z.ZodType;
}

/** A body's media type -> its schema. */
export type ContentDeclaration = Record<string, z.ZodType>;

export interface LinkDeclaration {
  operationId: string;
  parameters: Record<string, string>;
  description: string;
}

export interface ResponseDeclaration {
  description: string;
  /** Each header written out, or the name of a header component. */
  headers?: Record<string, HeaderDeclaration | string>;
  content?: ContentDeclaration;
  links?: Record<string, LinkDeclaration>;
}

/** One operation: what a route of a surface's route table answers, and how the document describes it. */
export interface OperationDeclaration {
  /** The path as the document writes it (`/taxii2/api/collections/{collection_id}/`). */
  path: string;
  method: Method;
  /** Stable: client generators name their functions after it. */
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security: Security;
  /** Names of parameter components, in order. */
  parameters?: string[];
  requestBody?: { required: boolean; content: ContentDeclaration };
  /** Status -> a response written out, or the name of a response component. */
  responses: Record<string, ResponseDeclaration | string>;
}

/** What one surface adds to the document; its component names are unique across surfaces. */
export interface OpenApiSurface {
  tags?: { name: string; description: string }[];
  /** Answers, named under components/schemas (every use of one is a `$ref`). */
  schemas?: Record<string, z.ZodType>;
  /** Request bodies, named under components/schemas and written as a client sends them. */
  requestSchemas?: Record<string, z.ZodType>;
  parameters?: Record<string, ParameterDeclaration>;
  headers?: Record<string, HeaderDeclaration>;
  responses?: Record<string, ResponseDeclaration>;
  securitySchemes?: Json;
  operations: OperationDeclaration[];
}
