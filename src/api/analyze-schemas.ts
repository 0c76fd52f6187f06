// analyze.php's form and answers as zod schemas (docs/observations.md, "Submissions for analysis").
import { z } from 'zod';
import { MAX_VALUE } from '../observations/sighting-input.js';
import { Indicator, IndicatorType } from './indicator-schemas.js';
import { recordId } from './lookup-schemas.js';
import { QUEUED } from './analyze-handlers.js';

const flag = (description: string) => z.int().min(0).max(1).optional().describe(description);

/** The form of POST /api/analyze.php, as the pulsedive client sends it. */
export const AnalysisForm = z
  .strictObject({
    ioc: z
      .string()
      .min(1)
      .describe(`The value to analyze in base64 (RFC 4648, the standard or the URL-safe alphabet, padded or not), UTF-8 text of at most ${MAX_VALUE} characters once decoded.`),
    enrich: flag('Sent by the pulsedive client; accepted and ignored: nothing is enriched.'),
    probe: flag('Sent by the pulsedive client; accepted and ignored: nothing is probed.'),
    key: z.string().optional().describe('The API key, as the pulsedive client sends it; or `key` in the query string, not both.'),
    pretty: flag('`1` indents the answer; or `pretty` in the query string, not both.'),
    sanitize: flag('Sent by the pulsedive client; accepted and ignored.'),
  })
  .describe('A value submitted for analysis.');

export const AnalysisQueued = z
  .strictObject({ success: z.literal(QUEUED), qid: recordId.describe('The submission\u2019s queue id: its result is read back with it, by the same key.') })
  .describe('The submission, recorded.');

export const UnknownAnalysis = z
  .strictObject({
    indicator: z.string().describe('The value as submitted: normalized when it is an indicator of some type, else as given.'),
    type: IndicatorType.describe('Its detected type; null when it is no indicator of any type.').nullable(),
    risk: z.literal('unknown'),
    known: z.literal(false).describe('No stored indicator holds the value: none was made for it.'),
  })
  .describe('The result for a value the store does not hold.');

export const AnalysisResult = z
  .strictObject({
    qid: recordId,
    status: z.literal('done').describe('Always `done`: a result is what the store holds, read when asked.'),
    data: z.union([Indicator, UnknownAnalysis]).describe('The indicator lookup\u2019s body (indicator.php) for a stored value, as it is now; else the value with `known` false.'),
  })
  .describe('The result of a submission for analysis.');
