// A value's provenance (docs/interface.md section 12.4) as the console's value page shows it: one section per question, each headed, so that a
// screen reader can jump between them; tables with their headers; every fact in words, never by colour alone.
import { Fragment } from 'preact';
import type { Provenance } from '../sources/value-provenance.js';
import { CONSOLE_PATHS } from './console-deps.js';
import { Notice } from './layout.js';
import { StampTime } from './stamp-time.js';

/** Nothing in the store or the allowlist knows it: no indicator, no listing, no block holding it, no rejection, no entry. */
function unknown(p: Provenance): boolean {
  return p.indicator === null && p.feeds.length === 0 && p.threats.length === 0 && p.blocks.length === 0 && p.allowlist === null && p.rejection === null;
}

export function ProvenanceView({ p }: { p: Provenance }) {
  return (
    <section id="value-result" aria-labelledby="value-result-heading">
      <h2 id="value-result-heading">What threatgate knows of it</h2>
      <dl class="facts" id="value-normalized">
        <dt>As asked</dt>
        <dd>
          <code>{p.value}</code>
        </dd>
        <dt>As pulls store it</dt>
        <dd>
          {p.normalized === null ? (
            <>Not an indicator of any type: {p.unparseable}</>
          ) : (
            <>
              <code>{p.normalized.value}</code> (type {p.normalized.type})
            </>
          )}
        </dd>
      </dl>
      {unknown(p) ? (
        <div id="value-unknown">
          <Notice kind="info">
            Nothing knows this value: there is no indicator of it, no stored block holds it, no feed lists it or listed it, no pull rejected it, and no allowlist entry
            covers it.
          </Notice>
        </div>
      ) : (
        <>
          <IndicatorSection p={p} />
          {p.blocks.length > 0 && <BlocksSection p={p} />}
          <FeedsSection p={p} />
          <ThreatsSection p={p} />
          <AllowlistSection p={p} />
          <RejectionSection p={p} />
          <CollectionsSection p={p} />
        </>
      )}
    </section>
  );
}

function IndicatorSection({ p }: { p: Provenance }) {
  const i = p.indicator;
  return (
    <section id="value-indicator" aria-labelledby="value-indicator-heading">
      <h3 id="value-indicator-heading">Indicator</h3>
      {i === null ? (
        <p>No indicator of it is stored.</p>
      ) : (
        <dl class="facts">
          <dt>Indicator id</dt>
          <dd>{i.iid}</dd>
          <dt>Type</dt>
          <dd>{i.type}</dd>
          <dt>Risk</dt>
          <dd>{i.risk}</dd>
          <dt>Retired</dt>
          <dd>
            {i.retired ? (
              <>
                Yes, <StampTime stamp={i.stamp_retired} none="when not known" />
                {i.retired_reason !== null && <>: {RETIRED_REASONS[i.retired_reason]}</>}
              </>
            ) : (
              'No'
            )}
          </dd>
          <dt>Added</dt>
          <dd>
            <StampTime stamp={i.stamp_added} none="not known" />
          </dd>
          <dt>Last seen</dt>
          <dd>
            <StampTime stamp={i.stamp_seen} />
          </dd>
        </dl>
      )}
    </section>
  );
}

/** The stored blocks holding an address or block (docs/lookup-api.md, "An address inside a listed block"); shown only when there are some. */
function BlocksSection({ p }: { p: Provenance }) {
  return (
    <section id="value-blocks" aria-labelledby="value-blocks-heading">
      <h3 id="value-blocks-heading">Blocks holding it</h3>
      <table>
        <caption>Each stored block that holds it, narrowest first</caption>
        <thead>
          <tr>
            <th scope="col">Block</th>
            <th scope="col" class="number">Indicator id</th>
            <th scope="col">Risk</th>
            <th scope="col">Retired</th>
          </tr>
        </thead>
        <tbody>
          {p.blocks.map((b) => (
            <tr key={b.iid}>
              <th scope="row">
                <a href={`${CONSOLE_PATHS.value}?${new URLSearchParams({ value: b.value })}`}>
                  <code>{b.value}</code>
                </a>
              </th>
              <td class="number">{b.iid}</td>
              <td>{b.risk}</td>
              <td>{b.retired ? 'Yes' : 'No'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const RETIRED_REASONS: Record<string, string> = {
  'aged-out': 'no source listed it for the configured days (aged out)',
  upstream: 'the source that listed it withdrew it',
  allowlisted: 'an allowlist entry covers it (allowlisted)',
};

function FeedsSection({ p }: { p: Provenance }) {
  return (
    <section id="value-feeds" aria-labelledby="value-feeds-heading">
      <h3 id="value-feeds-heading">Feeds</h3>
      {p.feeds.length === 0 ? (
        <p>No feed lists it or listed it.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>Each feed that lists it now or listed it</caption>
            <thead>
              <tr>
                <th scope="col">Feed</th>
                <th scope="col">Organization</th>
                <th scope="col">Lists it now</th>
                <th scope="col">First listed</th>
                <th scope="col">Last listed</th>
                <th scope="col">Risk it gives</th>
                <th scope="col">Linked by</th>
              </tr>
            </thead>
            <tbody>
              {p.feeds.map((f) => (
                <tr key={f.fid}>
                  <th scope="row">
                    <a href={CONSOLE_PATHS.feed(f.fid)}>{f.feed}</a>
                  </th>
                  <td>{f.organization}</td>
                  <td>{f.listed_now ? 'Yes' : 'No'}</td>
                  <td>
                    <StampTime stamp={f.first_listed} />
                  </td>
                  <td>
                    <StampTime stamp={f.last_listed} none="not pulled" />
                  </td>
                  <td>{f.risk ?? 'none (an import)'}</td>
                  <td>{f.linked_by === 'pull' ? 'its pulls' : 'an import file'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p id="value-risk-from">
        {p.risk_from.length === 0 ? (
          p.indicator === null ? (
            'No risk: no indicator is stored.'
          ) : (
            `Its risk (${p.indicator.risk}) comes from no feed listing it now: ${p.indicator.risk === 'retired' ? 'it is retired' : 'an import set it'}.`
          )
        ) : (
          <>
            Its risk ({p.indicator?.risk}) comes from{' '}
            {p.risk_from.map((f, n) => (
              <Fragment key={f.fid}>
                {n > 0 && ', '}
                <a href={CONSOLE_PATHS.feed(f.fid)}>{f.feed}</a>
              </Fragment>
            ))}
            .
          </>
        )}
      </p>
    </section>
  );
}

function ThreatsSection({ p }: { p: Provenance }) {
  return (
    <section id="value-threats" aria-labelledby="value-threats-heading">
      <h3 id="value-threats-heading">Threats</h3>
      {p.threats.length === 0 ? (
        <p>It is linked to no threat.</p>
      ) : (
        <table>
          <caption>Each threat it is linked to, and what linked it</caption>
          <thead>
            <tr>
              <th scope="col">Threat</th>
              <th scope="col" class="number">Threat id</th>
              <th scope="col">Retired</th>
              <th scope="col">Linked</th>
              <th scope="col">Linked by</th>
            </tr>
          </thead>
          <tbody>
            {p.threats.map((t) => (
              <tr key={t.tid}>
                <th scope="row">
                  <a href={CONSOLE_PATHS.threat(t.tid)}>{t.name}</a>
                </th>
                <td class="number">{t.tid}</td>
                <td>{t.retired ? 'Yes' : 'No'}</td>
                <td>
                  <StampTime stamp={t.stamp_linked} />
                </td>
                <td>{t.linked_by === null ? 'an import file' : <a href={CONSOLE_PATHS.feed(t.linked_by.fid)}>{`a pull of ${t.linked_by.feed}`}</a>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function AllowlistSection({ p }: { p: Provenance }) {
  return (
    <section id="value-allowlist" aria-labelledby="value-allowlist-heading">
      <h3 id="value-allowlist-heading">Allowlist</h3>
      {p.allowlist === null ? (
        <p>No allowlist entry covers it: pulls may store it.</p>
      ) : (
        <p>
          The allowlist entry <code>{p.allowlist.entry}</code> keeps it out of every pull (<a href={CONSOLE_PATHS.allowlist}>the allowlist</a>).
        </p>
      )}
    </section>
  );
}

function RejectionSection({ p }: { p: Provenance }) {
  const r = p.rejection;
  return (
    <section id="value-rejection" aria-labelledby="value-rejection-heading">
      <h3 id="value-rejection-heading">Last rejection</h3>
      {r === null ? (
        <p>No pull has rejected it.</p>
      ) : (
        <p>
          A pull of <a href={CONSOLE_PATHS.feed(r.fid)}>{r.feed}</a> rejected it at <StampTime stamp={r.at} />:{' '}
          {r.reason === 'allowlisted' ? 'the allowlist keeps it out' : 'it is no indicator of any type (unparseable)'}.
        </p>
      )}
    </section>
  );
}

function CollectionsSection({ p }: { p: Provenance }) {
  const exported = new Map(p.exports.map((e) => [e.collection, e.url]));
  return (
    <section id="value-collections" aria-labelledby="value-collections-heading">
      <h3 id="value-collections-heading">Collections and exports</h3>
      {p.collections.length === 0 ? (
        <p>No collection holds it, so no export lists it.</p>
      ) : (
        <table>
          <caption>Each TAXII collection that holds it now, and the export that lists it</caption>
          <thead>
            <tr>
              <th scope="col">Collection</th>
              <th scope="col">Id</th>
              <th scope="col">Export</th>
            </tr>
          </thead>
          <tbody>
            {p.collections.map((c) => (
              <tr key={c.id}>
                <th scope="row">{c.title}</th>
                <td>
                  <code>{c.id}</code>
                </td>
                <td>{exported.has(c.id) ? <code>{exported.get(c.id)}</code> : 'none: the indicator is retired'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
