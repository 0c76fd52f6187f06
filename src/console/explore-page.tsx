// The console's Explore routes (docs/console-and-operations.md, "Explore"; the language in docs/explore.md): a query read by the
// explore reader, answered by the store a page at a time, or as CSV; a query the reader refuses or the store stops comes back beside the box.
import { Router, type Request, type RequestHandler } from 'express';
import { BadRequestError } from '../errors.js';
import { exploreCsv } from '../explore/explore-csv.js';
import { exploreFilter, ExploreQueryError, type ExploreMode } from '../explore/explore-filters.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { singleParam } from '../http/query-params.js';
import type { ExploreQuery, ExploreResult } from '../store/contract/explore.js';
import { pageContext, type ConsoleDeps } from './console-deps.js';
import { EXPLORE_FIELDS, EXPLORE_MAX_PAGES, EXPLORE_PAGE_SIZE, ExplorePage, type ExploreAnswer, type ExploreForm } from './explore-view.js';
import { sendPage } from './render.js';

/** The form as the query sends it; `q` undefined when no query was sent (the page opens on the empty form, in the mode asked for). */
function readForm(req: Request): { q: string | undefined; mode: ExploreMode } {
  const given = singleParam(req, EXPLORE_FIELDS.mode)?.trim().toLowerCase();
  if (given !== undefined && given !== '' && given !== 'indicators' && given !== 'threats') {
    throw new BadRequestError(`Parameter "${EXPLORE_FIELDS.mode}" must be "indicators" or "threats".`);
  }
  const mode: ExploreMode = given === 'threats' ? 'threats' : 'indicators';
  return { q: singleParam(req, EXPLORE_FIELDS.q), mode };
}

/** `page`, from 0, at most the console's last page: a link past it was not made by the console. */
function pageParam(req: Request): number {
  const text = singleParam(req, EXPLORE_FIELDS.page)?.trim();
  if (text === undefined || text === '') return 0;
  if (!/^[0-9]{1,3}$/.test(text) || Number(text) >= EXPLORE_MAX_PAGES) {
    throw new BadRequestError(`Parameter "${EXPLORE_FIELDS.page}" must be a whole number from 0 to ${EXPLORE_MAX_PAGES - 1}.`);
  }
  return Number(text);
}

/** The reader's message as the box's: `q: at 6: ...` is "At character 6: ...", since it is shown beside the query. */
function boxMessage(message: string): string {
  const text = message.replace(/^q: /, '').replace(/^at (\d+): /, 'At character $1: ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function createExplorePage(deps: ConsoleDeps): Router {
  const { store, config, clock } = deps;
  const { maxMillis } = config.explore;
  const timedOut = `The query ran longer than ${maxMillis.toLocaleString('en-US')} ms and was stopped: narrow it (another term, a shorter age, a longer run of characters in a wildcard).`;

  /** The query read and asked of the store: the rows, or the message for the box (the reader's where and what, or the time limit). */
  async function ask(form: ExploreForm, offset: number, limit: number): Promise<{ result: Extract<ExploreResult, { timedOut?: false }> } | { error: string }> {
    if (form.q.trim() === '') return { error: 'Enter a query, or follow one of the examples below.' };
    let query: ExploreQuery;
    try {
      query =
        form.mode === 'indicators'
          ? { mode: 'indicators', filter: exploreFilter('indicators', form.q, clock.now()), offset, limit, maxMillis }
          : { mode: 'threats', filter: exploreFilter('threats', form.q, clock.now()), offset, limit, maxMillis };
    } catch (error) {
      if (error instanceof ExploreQueryError) return { error: boxMessage(error.message) };
      throw error;
    }
    const result = await store.explore(query);
    return result.timedOut === true ? { error: timedOut } : { result };
  }

  const showExplore: RequestHandler = async (req, res) => {
    const ctx = pageContext(res);
    const { q, mode } = readForm(req);
    const page = pageParam(req);
    if (q === undefined) return sendPage(res, <ExplorePage ctx={ctx} form={{ q: '', mode }} />);
    const form = { q, mode };
    const asked = await ask(form, page * EXPLORE_PAGE_SIZE, EXPLORE_PAGE_SIZE);
    if ('error' in asked) return sendPage(res, <ExplorePage ctx={ctx} form={form} error={asked.error} />, 400);
    const answer = { ...asked.result, page } as ExploreAnswer;
    sendPage(res, <ExplorePage ctx={ctx} form={form} answer={answer} />);
  };

  /** Every page the console shows of the query, as one CSV document; a query that cannot be answered is the page's 400, with the message beside the box. */
  const showCsv: RequestHandler = async (req, res) => {
    const { q = '', mode } = readForm(req);
    const form = { q, mode };
    const asked = await ask(form, 0, EXPLORE_PAGE_SIZE * EXPLORE_MAX_PAGES);
    if ('error' in asked) return sendPage(res, <ExplorePage ctx={pageContext(res)} form={form} error={asked.error} />, 400);
    res.setHeader('Content-Disposition', `attachment; filename="explore-${form.mode}.csv"`);
    res.status(200).type('text/csv; charset=utf-8').send(exploreCsv(form.mode, asked.result.rows));
  };

  const onlyGet = methodNotAllowed(['GET', 'HEAD']);
  const router = Router();
  router.route('/explore').get(showExplore).all(onlyGet); // ?q=&type=indicators|threats&page=N: the form, and a page of rows
  router.route('/explore.csv').get(showCsv).all(onlyGet); // ?q=&type=: every page of the query as CSV
  return router;
}
