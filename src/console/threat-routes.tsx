// The console's threat routes (docs/console-and-operations.md, "The threat page"): a threat's page; Retire / Reactivate, which change it
// as `threatgate threats retire|reactivate TID` does (the lifecycle's setThreatRetired, docs/interface.md section 3); and "Seen", a
// sighting of the threat recorded as the session's admin key (recordSighting, docs/observations.md).
// Mounted by the console router past the session, so every POST here has passed its Origin and CSRF checks.
import { Router, type Request, type RequestHandler } from 'express';
import { BadRequestError, NotFoundError } from '../errors.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { singleParam } from '../http/query-params.js';
import { setThreatRetired } from '../lifecycle/run-lifecycle.js';
import { recordSighting } from '../observations/record-sighting.js';
import { LATEST_OBSERVATIONS } from '../observations/value-observations.js';
import type { ThreatRecord } from '../store/contract/records.js';
import { CONSOLE_PATHS, pageContext, type ConsoleDeps } from './console-deps.js';
import { sendPage } from './render.js';
import { readSeenForm, seenInput, seenParam, seenRefusal, SEEN_OUTCOME, sessionReporter } from './seen-form.js';
import { EMPTY_SEEN_FORM, seenMessage, type SeenFormState } from './sightings-view.js';
import { readThreatLinks } from './threat-links.js';
import { ThreatPage, type ThreatPageProps } from './threat-page.js';

const ID = /^[1-9][0-9]{0,15}$/;

/** The `:tid` of a threat's path: a positive whole number. */
function tidParam(req: Request): number {
  const text = req.params.tid;
  if (typeof text !== 'string' || !ID.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new BadRequestError('The threat id in the path must be a positive whole number.');
  }
  return Number(text);
}

/** `page` of the links, from 0 (the newest); at most nine digits, far past any threat's last page. */
function pageParam(req: Request): number {
  const text = singleParam(req, 'page')?.trim();
  if (text === undefined || text === '') return 0;
  if (!/^(0|[1-9][0-9]{0,8})$/.test(text)) throw new BadRequestError('Parameter "page" must be a whole number, 0 or more.');
  return Number(text);
}

/** The query a Retire or Reactivate redirects to: what it did. */
const STATE_FIELD = 'state';
const STATE_OUTCOMES = ['retired', 'reactivated', 'already-retired', 'already-active'] as const;
type StateOutcome = (typeof STATE_OUTCOMES)[number];

function stateParam(req: Request): StateOutcome | undefined {
  const text = singleParam(req, STATE_FIELD);
  if (text === undefined) return undefined;
  const outcome = STATE_OUTCOMES.find((o) => o === text);
  if (outcome === undefined) throw new BadRequestError(`Parameter "${STATE_FIELD}" must be one of ${STATE_OUTCOMES.join(', ')}.`);
  return outcome;
}

/** What the page says of the outcome, only while the record agrees: a link cannot make the page claim a change that did not happen. */
function stateMessage(outcome: StateOutcome | undefined, threat: ThreatRecord): ThreatPageProps['message'] {
  const retired = threat.retired === true;
  switch (outcome) {
    case 'retired':
      return retired ? { kind: 'ok', text: `Retired ${threat.threat}. Pulls and sightings that observe it now leave it retired, until it is reactivated.` } : undefined;
    case 'already-retired':
      return retired ? { kind: 'info', text: `${threat.threat} was already retired: nothing was changed.` } : undefined;
    case 'reactivated':
      return retired ? undefined : { kind: 'ok', text: `Reactivated ${threat.threat}: it is active again.` };
    case 'already-active':
      return retired ? undefined : { kind: 'info', text: `${threat.threat} was already active: nothing was changed.` };
    case undefined:
      return undefined;
  }
}

export function createThreatPages(deps: ConsoleDeps): Router {
  const { store, clock, logger } = deps;

  const findOrNotFound = async (tid: number): Promise<ThreatRecord> => {
    const threat = await store.findThreat(tid);
    if (threat === undefined) throw new NotFoundError(`There is no threat ${tid}.`);
    return threat;
  };

  /** The page: the threat, a page of its links, its sightings, and the Seen form (as sent, when it was refused). */
  const threatPage = async (tid: number, page: number, extra: { seenId?: number | undefined; seen?: SeenFormState } = {}) => {
    const threat = await findOrNotFound(tid);
    const [links, counts, latest] = await Promise.all([
      readThreatLinks(store, tid, threat.summary.risk.total, page),
      store.observationCounts({ tid }),
      store.listSightings({ tid }, LATEST_OBSERVATIONS),
    ]);
    const observed = { counts: counts ?? { sightings: 0, stamp_sighted: null, submissions: 0 }, latest };
    return { threat, links, observed, message: seenMessage(extra.seenId, latest), seen: extra.seen ?? EMPTY_SEEN_FORM };
  };

  const showThreat: RequestHandler = async (req, res) => {
    const tid = tidParam(req);
    const page = pageParam(req);
    const outcome = stateParam(req);
    const seenId = seenParam(req);
    const shown = await threatPage(tid, page, { seenId });
    sendPage(res, <ThreatPage ctx={pageContext(res)} {...shown} message={stateMessage(outcome, shown.threat) ?? shown.message} />);
  };

  /**
   * "Seen": a sighting of the threat, reported as the session's key, then its page (303: a reload does
   * not report it twice), which says what was recorded. A refused field comes back beside the form,
   * with the form as it was sent (400); nothing was recorded.
   */
  const seen: RequestHandler = async (req, res) => {
    const tid = tidParam(req);
    const ctx = pageContext(res);
    const form = readSeenForm(req);
    await findOrNotFound(tid);
    try {
      const sighting = await recordSighting(store, { tid, ...seenInput(form) }, sessionReporter(ctx), clock);
      logger.info('console sighting', { client: ctx.keyId, tid, sighting: sighting.id });
      res.redirect(303, `${CONSOLE_PATHS.threat(tid)}?${new URLSearchParams({ [SEEN_OUTCOME]: String(sighting.id) })}`);
    } catch (error) {
      const refused = seenRefusal(error);
      if (refused === undefined) throw error;
      sendPage(res, <ThreatPage ctx={ctx} {...await threatPage(tid, 0, { seen: { ...form, error: refused.error } })} />, refused.status);
    }
  };

  /** Retires or reactivates the threat, then sends the browser to its page (303: a reload does not ask again), which says what was done. */
  const setRetired =
    (retired: boolean): RequestHandler =>
    async (req, res) => {
      const tid = tidParam(req);
      await findOrNotFound(tid);
      const changed = await setThreatRetired(store, tid, retired, clock);
      const outcome: StateOutcome = retired ? (changed ? 'retired' : 'already-retired') : changed ? 'reactivated' : 'already-active';
      logger.info('console threat state', { client: pageContext(res).keyId, tid, outcome });
      res.redirect(303, `${CONSOLE_PATHS.threat(tid)}?${new URLSearchParams({ [STATE_FIELD]: outcome })}`);
    };

  const onlyPost = methodNotAllowed(['POST']);
  const router = Router();
  router.route('/threats/:tid').get(showThreat).all(methodNotAllowed(['GET', 'HEAD'])); // ?page=N: its record and a page of its links, newest first
  router.route('/threats/:tid/retire').post(setRetired(true)).all(onlyPost); // retired by hand, 303 to its page
  router.route('/threats/:tid/reactivate').post(setRetired(false)).all(onlyPost); // active again, 303 to its page
  router.route('/threats/:tid/seen').post(seen).all(onlyPost); // count, note, at: a sighting, 303 to its page
  return router;
}
