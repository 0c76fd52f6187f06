// analyze.php (docs/observations.md, "Submissions for analysis"): a POST records a submission under its
// key and answers its queue id at once; a GET answers that submission's result to the same key: the
// indicator lookup's body for a stored value, or that the value is unknown. Nothing is probed or enriched.
import type { Request, Response } from 'express';
import type { Clock } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { sendJson } from '../http/send-json.js';
import type { IndicatorType } from '../indicator-types.js';
import { ObservationRefused } from '../observations/observation-refused.js';
import { submitForAnalysis } from '../observations/submit-for-analysis.js';
import { getClient } from '../plans/request-client.js';
import { storedTypesOf } from '../sources/indicator-value.js';
import type { SubmissionRecord } from '../store/contract/observations.js';
import type { Store } from '../store/contract/store.js';
import { analysisResultRequest, analysisSubmission } from './analyze-request.js';
import { toIndicatorBody } from './lookup-views.js';

/** What Pulsedive answers a submission with, which its clients read. */
export const QUEUED = 'Added request to queue.';
export const ANALYSIS_NOT_FOUND = 'Analysis not found.';

/** The key a request past analyze.php's admission was made with (that admission refuses a request without one). */
function keyIdOf(res: Response): string {
  const { keyId } = getClient(res);
  if (keyId === null) throw new Error('analyze.php was served without a key');
  return keyId;
}

/**
 * A submission's result: the indicator lookup's body for the value as the store holds it now (by
 * the indicator it named when submitted, else by its value, which a pull may have stored since), or
 * the value with `known` false.
 */
export async function analysisData(store: Store, submission: SubmissionRecord) {
  const byIid = submission.iid === null ? undefined : await store.findIndicator(submission.iid);
  const indicator = byIid ?? (submission.type === null ? undefined : await store.findIndicatorByValue(submission.value, storedTypesOf(submission.type as IndicatorType)));
  if (indicator !== undefined) return toIndicatorBody(indicator);
  return { indicator: submission.value, type: submission.type, risk: 'unknown' as const, known: false as const };
}

export function createAnalysisHandlers(store: Store, clock: Clock) {
  return {
    /** POST: the submission recorded, its qid answered. */
    async submit(req: Request, res: Response): Promise<void> {
      const { value, pretty } = analysisSubmission(req);
      let qid: number;
      try {
        qid = (await submitForAnalysis(store, { value, keyId: keyIdOf(res) }, clock)).qid;
      } catch (error) {
        if (error instanceof ObservationRefused) throw new BadRequestError(`Parameter "ioc": the value ${error.reason}.`);
        throw error;
      }
      sendJson(res, { success: QUEUED, qid }, pretty);
    },
    /** GET: the result of one of this key's submissions; another key's, or none, is a 404. */
    async result(req: Request, res: Response): Promise<void> {
      const { qid, pretty } = analysisResultRequest(req);
      const submission = await store.findSubmission(qid, keyIdOf(res));
      if (submission === undefined) throw new NotFoundError(ANALYSIS_NOT_FOUND);
      sendJson(res, { qid, status: 'done', data: await analysisData(store, submission) }, pretty);
    },
  };
}
