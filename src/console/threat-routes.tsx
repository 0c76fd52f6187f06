// The console's threat routes (docs/console-and-operations.md, "The threat page"): a threat's page, and Retire / Reactivate,
// which change it as `threatgate threats retire|reactivate TID` does (the lifecycle's setThreatRetired, docs/interface.md section 3).
// Mounted by the console router past the session, so every POST here has passed its Origin and CSRF checks.
import { Router, type Request, type RequestHandler } from 'express';
import { BadRequestError, NotFoundError } from '../errors.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { singleParam } from '../http/query-params.js';
import { setThreatRetired } from '../lifecycle/run-lifecycle.js';
import type { ThreatRecord } from '../store/contract/records.js';
import { CONSOLE_PATHS, pageContext, type ConsoleDeps } from './console-deps.js';
import { sendPage } from './render.js';
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

  const showThreat: RequestHandler = async (req, res) => {
    const tid = tidParam(req);
    const page = pageParam(req);
    const outcome = stateParam(req);
    const threat = await findOrNotFound(tid);
    const links = await readThreatLinks(store, tid, threat.summary.risk.total, page);
    const message = stateMessage(outcome, threat);
    sendPage(res, <ThreatPage ctx={pageContext(res)} threat={threat} links={links} message={message} />);
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
  return router;
}
