// analyze.php in the OpenAPI document (docs/observations.md, "Submissions for analysis"): the POST of a value and the GET of its result.
import { z } from 'zod';
import type { OpenApiSurface, OperationDeclaration, ParameterDeclaration, ResponseDeclaration, Security } from '../http/openapi-declarations.js';
import { JSON_TYPE } from '../http/openapi-json.js';
import { errorResponse, ErrorBody, rateHeaders } from '../http/openapi-shared.js';
import { MAX_FORM_BYTES } from './analyze-form.js';
import { AnalysisForm, AnalysisQueued, AnalysisResult, UnknownAnalysis } from './analyze-schemas.js';

const TAG = 'Analysis';
const FORM_TYPE = 'application/x-www-form-urlencoded';
/** A key is required: in the query as everywhere, or in the form (which no security scheme can say; the form's `key` field does). */
const SECURITY: Security = [{ apiKey: [] }];

const PARAMETERS: Record<string, ParameterDeclaration> = {
  'analyze-qid': { name: 'qid', in: 'query', required: true, description: 'The queue id a submission answered, by the key that made it.', schema: z.int().min(1), example: 1 },
};

const shared = (statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), `LookupError${status}`]));
const UNAUTHORIZED = errorResponse(
  401,
  JSON_TYPE,
  ErrorBody,
  'No key (analyze.php needs one: a submission is read back only by the key that made it), or a key that is malformed, unknown or revoked (which counts as a failed authentication of the client address, see 429).',
);

function operation(method: 'get' | 'post', operationId: string, summary: string, description: string, ok: ResponseDeclaration, errors: Record<string, ResponseDeclaration | string>, extra: Partial<OperationDeclaration> = {}): OperationDeclaration {
  return {
    path: '/api/analyze.php',
    method,
    tags: [TAG],
    operationId,
    summary,
    description,
    security: SECURITY,
    parameters: [...(extra.parameters ?? []), 'pretty'],
    ...(extra.requestBody ? { requestBody: extra.requestBody } : {}),
    responses: { '200': ok, '401': UNAUTHORIZED, ...shared([403, 429, 500, 503]), ...errors },
  };
}

export function analyzeOpenApi(): OpenApiSurface {
  return {
    tags: [
      {
        name: TAG,
        description:
          'Submissions for analysis, as the pulsedive client\u2019s `analyze` and `analyze.results` send them (docs/observations.md): recorded against the key, an observation of a stored value, never a new indicator; nothing is probed or enriched. Plans, rate limits and error bodies are the lookup API\u2019s; a key is required.',
      },
    ],
    schemas: { AnalysisQueued, AnalysisResult, UnknownAnalysis },
    requestSchemas: { AnalysisForm },
    parameters: PARAMETERS,
    operations: [
      operation(
        'post',
        'submitAnalysis',
        'Submit a value for analysis',
        `Records the value (\`ioc\`, base64) against the key and answers its queue id at once. A stored indicator\u2019s value is an observation of it (its \`stamp_seen\` and its threats\u2019 become now); any other value is recorded only, and reaches no export or collection. The form\u2019s fields may come in the query string instead (each in one place): the pulsedive client sends them all in the body, \`key\` included. The checks run in this order: the form (413, 415), the key (401), the rate limits (429), the fields (400).`,
        { description: 'Recorded.', headers: rateHeaders(true), content: { [JSON_TYPE]: AnalysisQueued } },
        {
          '400': errorResponse(400, JSON_TYPE, ErrorBody, '`ioc` is missing, not base64, not UTF-8, empty once decoded, too long or holds control characters; or a field is repeated, or given both in the form and in the query; the message names it.'),
          '413': errorResponse(413, JSON_TYPE, ErrorBody, `The body is larger than ${MAX_FORM_BYTES} bytes, or the form has more than 100 fields.`),
          '415': errorResponse(415, JSON_TYPE, ErrorBody, `The body is not a form (\`Content-Type: ${FORM_TYPE}\`, UTF-8).`),
        },
        { requestBody: { required: false, content: { [FORM_TYPE]: AnalysisForm } } },
      ),
      operation(
        'get',
        'getAnalysis',
        'The result of a submission',
        'The submission `qid` of the same key: the indicator lookup\u2019s body for a stored value, as the store holds it now, or the value with `known` false. Another key\u2019s submission, or none, is a 404.',
        { description: 'The result.', headers: rateHeaders(true), content: { [JSON_TYPE]: AnalysisResult } },
        { ...shared([400]), '404': errorResponse(404, JSON_TYPE, ErrorBody, '`Analysis not found.`: no submission of this key has the qid.') },
        { parameters: ['analyze-qid'] },
      ),
    ],
  };
}
