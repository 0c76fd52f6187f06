// The sections of a threat's console page (docs/console-and-operations.md, "The threat page"): its risk counts, the feeds sharing its
// indicators, its ATT&CK techniques, and its linked indicators a page at a time; each section headed, each table with its headers.
import { RISK_LEVELS } from '../domain.js';
import type { ThreatRecord } from '../store/contract/records.js';
import { attackTechniqueUrl, threatTechniques } from '../stix/attack-techniques.js';
import { CONSOLE_PATHS } from './console-deps.js';
import { count, IndicatorCells, StampTime } from './stamp-time.js';
import { THREAT_LINKS_PAGE_SIZE, type ThreatLinksWindow } from './threat-links.js';


/** The threat page's URL at a page of its links (the first, page 0, has no query). */
export function threatLinksHref(tid: number, page: number): string {
  return page === 0 ? CONSOLE_PATHS.threat(tid) : `${CONSOLE_PATHS.threat(tid)}?page=${page}`;
}

/** Its `summary.risk` as threat.php serves it: how many linked indicators stand at each level, and all of them. */
export function RiskSection({ threat }: { threat: ThreatRecord }) {
  const risk = threat.summary.risk;
  return (
    <section id="threat-risk" aria-labelledby="threat-risk-heading">
      <h2 id="threat-risk-heading">Risk of its indicators</h2>
      <table class="narrow">
        <caption>Its linked indicators at each risk level</caption>
        <thead>
          <tr>
            <th scope="col">Risk</th>
            <th scope="col" class="number">Indicators</th>
          </tr>
        </thead>
        <tbody>
          {RISK_LEVELS.map((level) => (
            <tr key={level} data-risk={level}>
              <th scope="row">{level}</th>
              <td class="number">{count(risk[level])}</td>
            </tr>
          ))}
          <tr data-risk="total">
            <th scope="row">total</th>
            <td class="number">{count(risk.total)}</td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}

/** Its `summary.feeds`: each feed that lists any of its indicators, with how many, linked to the feed's page. */
export function FeedsSection({ threat }: { threat: ThreatRecord }) {
  const feeds = threat.summary.feeds;
  return (
    <section id="threat-feeds" aria-labelledby="threat-feeds-heading">
      <h2 id="threat-feeds-heading">Feeds</h2>
      {feeds.length === 0 ? (
        <p>No feed lists any of its indicators.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>Each feed that lists any of its indicators, and how many it shares</caption>
            <thead>
              <tr>
                <th scope="col">Feed</th>
                <th scope="col">Organization</th>
                <th scope="col">Category</th>
                <th scope="col">Pricing</th>
                <th scope="col" class="number">Shared indicators</th>
              </tr>
            </thead>
            <tbody>
              {feeds.map((f) => (
                <tr key={f.fid}>
                  <th scope="row">
                    <a href={CONSOLE_PATHS.feed(f.fid)}>{f.name}</a>
                  </th>
                  <td>{f.organization}</td>
                  <td>{f.category}</td>
                  <td>{f.pricing}</td>
                  <td class="number">{count(f.indicators)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** Its ttps read as TAXII reads them (src/stix/attack-techniques.ts): each technique once, with its name and tactics, linked to its ATT&CK page. */
export function TechniquesSection({ threat }: { threat: ThreatRecord }) {
  const { techniques, skipped } = threatTechniques(threat.ttps);
  return (
    <section id="threat-techniques" aria-labelledby="threat-techniques-heading">
      <h2 id="threat-techniques-heading">ATT&amp;CK techniques</h2>
      {techniques.length === 0 ? (
        <p>Its ttps name no ATT&amp;CK technique.</p>
      ) : (
        <table>
          <caption>The techniques its ttps name, in their order</caption>
          <thead>
            <tr>
              <th scope="col">Technique</th>
              <th scope="col">Name</th>
              <th scope="col">Tactics</th>
            </tr>
          </thead>
          <tbody>
            {techniques.map((t) => (
              <tr key={t.technique}>
                <th scope="row">
                  <a href={attackTechniqueUrl(t.technique)} rel="external noreferrer">
                    {t.technique}
                  </a>
                </th>
                <td>{t.name ?? <span class="muted">not named</span>}</td>
                <td>{t.tactics.length === 0 ? <span class="muted">none given</span> : t.tactics.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {skipped > 0 && <p class="help">{`${count(skipped)} of its ttps items ${skipped === 1 ? 'names' : 'name'} no valid technique id: not shown.`}</p>}
    </section>
  );
}

/** Its linked indicators, newest first, a page at a time; each value links to its provenance. */
export function LinksSection({ tid, links }: { tid: number; links: ThreatLinksWindow }) {
  return (
    <section id="threat-links" aria-labelledby="threat-links-heading">
      <h2 id="threat-links-heading">Linked indicators</h2>
      {links.total === 0 ? (
        <p id="threat-links-range">No indicator is linked to it.</p>
      ) : links.rows.length === 0 ? (
        <p id="threat-links-range">{`No linked indicator on this page: its ${count(links.total)} fill ${count(links.pages)} page${links.pages === 1 ? '' : 's'}.`}</p>
      ) : (
        <p id="threat-links-range">
          {`Indicators ${count(links.first + 1)} to ${count(links.first + links.rows.length)} of ${count(links.total)}, newest first (page ${count(links.page + 1)} of ${count(links.pages)}).`}
        </p>
      )}
      {links.rows.length > 0 && (
        <div class="table-wrap">
          <table id="threat-links-table">
            <caption>Its linked indicators, newest first; each value links to its provenance</caption>
            <thead>
              <tr>
                <th scope="col" class="number">iid</th>
                <th scope="col">Value</th>
                <th scope="col">Type</th>
                <th scope="col">Risk</th>
                <th scope="col">Linked</th>
              </tr>
            </thead>
            <tbody>
              {links.rows.map((row) => (
                <tr key={row.iid}>
                  <IndicatorCells row={row} stamp={row.stamp_linked} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {links.pages > 1 && <Pager tid={tid} page={links.page} pages={links.pages} />}
    </section>
  );
}

/** The pages to name: the first, the last, and two either side of the current one. */
export function pagerPages(page: number, pages: number): number[] {
  const shown = new Set([0, pages - 1]);
  for (let n = page - 2; n <= page + 2; n++) if (n >= 0 && n < pages) shown.add(n);
  return [...shown].sort((a, b) => a - b);
}

/** Newer and older pages, and the pages by number; a gap in the numbers is marked with an ellipsis. */
function Pager({ tid, page, pages }: { tid: number; page: number; pages: number }) {
  const numbers = pagerPages(page, pages);
  return (
    <nav aria-label="Pages of linked indicators" class="toolbar pager">
      {page > 0 && page < pages && (
        <a id="threat-links-newer" rel="prev" href={threatLinksHref(tid, page - 1)}>
          Newer {THREAT_LINKS_PAGE_SIZE}
        </a>
      )}
      <ol>
        {numbers.map((n, i) => (
          <li key={n}>
            {i > 0 && n > numbers[i - 1]! + 1 && <span aria-hidden="true">… </span>}
            {n === page ? (
              <span aria-current="page">
                <span class="visually-hidden">Page </span>
                {count(n + 1)}
              </span>
            ) : (
              <a href={threatLinksHref(tid, n)}>
                <span class="visually-hidden">Page </span>
                {count(n + 1)}
              </a>
            )}
          </li>
        ))}
      </ol>
      {page < pages - 1 && (
        <a id="threat-links-older" rel="next" href={threatLinksHref(tid, page + 1)}>
          Older {THREAT_LINKS_PAGE_SIZE}
        </a>
      )}
    </nav>
  );
}
