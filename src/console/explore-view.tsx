// The console's Explore page (docs/console-and-operations.md, "Explore"): the query form with its error beside the box, the help at hand, and a page of rows with its paging and CSV links.
import type { ExploreMode } from '../explore/explore-filters.js';
import type { ExploreIndicatorRow, ExploreThreatRow } from '../store/contract/explore.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { Page } from './layout.js';
import { exploreHref, ExploreSyntax } from './explore-syntax.js';
import { count, IndicatorCells, StampTime } from './stamp-time.js';

/** Rows a page shows, and the most pages the console reads of one query: an operator narrows a query rather than page past 10,000 rows. */
export const EXPLORE_PAGE_SIZE = 100;
export const EXPLORE_MAX_PAGES = 100;

/** The form's fields: `GET /console/explore?q=...&type=indicators|threats&page=N` (N from 0). */
export const EXPLORE_FIELDS = { q: 'q', mode: 'type', page: 'page' } as const;

export interface ExploreForm {
  /** The query as typed, kept in the box. */
  q: string;
  mode: ExploreMode;
}

/** A page of rows the store answered, page N from 0. */
export type ExploreAnswer =
  | { mode: 'indicators'; rows: ExploreIndicatorRow[]; more: boolean; page: number }
  | { mode: 'threats'; rows: ExploreThreatRow[]; more: boolean; page: number };

export interface ExplorePageProps {
  ctx: PageContext;
  form: ExploreForm;
  /** What is wrong with the query (where and what), or that it ran too long: shown beside the box. */
  error?: string | undefined;
  answer?: ExploreAnswer | undefined;
}

/** The CSV of a query: served by the console itself, under the session, as the page's rows are. */
export function exploreCsvHref(form: ExploreForm): string {
  return `${CONSOLE_PATHS.exploreCsv}?${new URLSearchParams({ q: form.q, type: form.mode })}`;
}


export function ExplorePage({ ctx, form, error, answer }: ExplorePageProps) {
  const describedBy = error === undefined ? 'explore-help' : 'explore-error explore-help';
  return (
    <Page title="Explore" ctx={ctx}>
      <form id="explore-form" class="explore" method="get" action={CONSOLE_PATHS.explore} role="search" aria-label="Explore the store">
        <fieldset id="explore-mode">
          <legend>Search</legend>
          {(['indicators', 'threats'] as const).map((mode) => (
            <span class="choice" key={mode}>
              <input type="radio" id={`explore-mode-${mode}`} name={EXPLORE_FIELDS.mode} value={mode} checked={form.mode === mode} />{' '}
              <label for={`explore-mode-${mode}`}>{mode === 'indicators' ? 'Indicators' : 'Threats'}</label>{' '}
            </span>
          ))}
        </fieldset>
        <p class="query">
          <label for="explore-q">Query</label>
          <input
            id="explore-q"
            name={EXPLORE_FIELDS.q}
            type="search"
            value={form.q}
            required
            maxLength={2000}
            spellcheck={false}
            autocomplete="off"
            autoFocus={error !== undefined}
            aria-invalid={error === undefined ? undefined : 'true'}
            aria-describedby={describedBy}
          />
          <button type="submit">Explore</button>
        </p>
        {error !== undefined && (
          <p id="explore-error" class="error-text" role="alert">
            <strong>Error:</strong> {error}
          </p>
        )}
        <p id="explore-help" class="help">
          For example <code>risk&gt;=high and seen&gt;7d</code>: fields, <code>and</code>, <code>or</code>, <code>not</code>, wildcards and ages are in the query syntax below.
        </p>
      </form>
      <ExploreSyntax mode={form.mode} />
      {answer !== undefined && <ExploreResults form={form} answer={answer} />}
    </Page>
  );
}

function ExploreResults({ form, answer }: { form: ExploreForm; answer: ExploreAnswer }) {
  const first = answer.page * EXPLORE_PAGE_SIZE;
  const noun = answer.mode === 'indicators' ? 'indicator' : 'threat';
  const lastPage = answer.page >= EXPLORE_MAX_PAGES - 1;
  return (
    <section aria-labelledby="explore-results-heading">
      <h2 id="explore-results-heading">Results</h2>
      {answer.rows.length === 0 ? (
        <p id="explore-none">{answer.page === 0 ? `No ${noun} matches this query.` : `No ${noun} on this page: the matches end on an earlier one.`}</p>
      ) : (
        <p id="explore-range">
          {`${answer.mode === 'indicators' ? 'Indicators' : 'Threats'} ${count(first + 1)} to ${count(first + answer.rows.length)}${answer.more ? ', more follow' : ''}; newest first.`}
        </p>
      )}
      {answer.rows.length > 0 && (answer.mode === 'indicators' ? <IndicatorTable rows={answer.rows} /> : <ThreatTable rows={answer.rows} />)}
      {(answer.page > 0 || answer.more) && (
        <nav aria-label="Result pages" class="toolbar">
          {answer.page > 0 && (
            <a id="explore-previous" rel="prev" href={exploreHref(form.q, form.mode, answer.page - 1)}>
              Previous {EXPLORE_PAGE_SIZE}
            </a>
          )}
          {answer.more && !lastPage && (
            <a id="explore-next" rel="next" href={exploreHref(form.q, form.mode, answer.page + 1)}>
              Next {EXPLORE_PAGE_SIZE}
            </a>
          )}
        </nav>
      )}
      {answer.more && lastPage && <p id="explore-last-page">The console shows the first {count(EXPLORE_PAGE_SIZE * EXPLORE_MAX_PAGES)} rows of a query: narrow it to see the rest.</p>}
      {answer.rows.length > 0 && (
        <p>
          <a id="explore-csv" href={exploreCsvHref(form)} download>
            Download as CSV
          </a>{' '}
          <span class="help">(every page, up to {count(EXPLORE_PAGE_SIZE * EXPLORE_MAX_PAGES)} rows)</span>
        </p>
      )}
    </section>
  );
}

const names = (list: readonly string[]) => (list.length === 0 ? <span class="muted">none</span> : list.join(', '));

function IndicatorTable({ rows }: { rows: ExploreIndicatorRow[] }) {
  return (
    <div class="table-wrap">
      <table id="explore-indicators">
        <caption>Indicators the query matches, newest first; each value links to its provenance</caption>
        <thead>
          <tr>
            <th scope="col" class="number">iid</th>
            <th scope="col">Value</th>
            <th scope="col">Type</th>
            <th scope="col">Risk</th>
            <th scope="col">Last seen</th>
            <th scope="col">Threats</th>
            <th scope="col">Feeds</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.iid}>
              <IndicatorCells row={row} stamp={row.stamp_seen} />
              <td>{names(row.threats)}</td>
              <td>{names(row.feeds)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Each threat's name links to its page. */
function ThreatTable({ rows }: { rows: ExploreThreatRow[] }) {
  return (
    <div class="table-wrap">
      <table id="explore-threats">
        <caption>Threats the query matches, newest first; each name links to its page</caption>
        <thead>
          <tr>
            <th scope="col" class="number">tid</th>
            <th scope="col">Name</th>
            <th scope="col">Category</th>
            <th scope="col">Risk</th>
            <th scope="col" class="number">Indicators</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.tid}>
              <td class="number">{row.tid}</td>
              <th scope="row">
                <a href={CONSOLE_PATHS.threat(row.tid)}>{row.threat}</a>
              </th>
              <td>{row.category}</td>
              <td>{row.risk}</td>
              <td class="number">{count(row.indicators)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
