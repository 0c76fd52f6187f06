// A threat's page in the console (docs/console-and-operations.md, "The threat page"): its record, Retire or Reactivate, its sightings
// and the "Seen" form, its risk counts, feeds and ATT&CK techniques, and its linked indicators a page at a time.
import type { ObservationCounts, SightingRecord } from '../store/contract/observations.js';
import type { ThreatRecord } from '../store/contract/records.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { CsrfField, Notice, Page } from './layout.js';
import { SightingsSection, type SeenFormState } from './sightings-view.js';
import { StampTime } from './stamp-time.js';
import type { ThreatLinksWindow } from './threat-links.js';
import { FeedsSection, LinksSection, RiskSection, TechniquesSection } from './threat-sections.js';

/** Where the threat page's forms post (each form also carries the CSRF field). */
export const THREAT_PATHS = {
  retire: (tid: number) => `${CONSOLE_PATHS.threat(tid)}/retire`,
  reactivate: (tid: number) => `${CONSOLE_PATHS.threat(tid)}/reactivate`,
  seen: (tid: number) => `${CONSOLE_PATHS.threat(tid)}/seen`,
} as const;

export interface ThreatPageProps {
  ctx: PageContext;
  threat: ThreatRecord;
  links: ThreatLinksWindow;
  /** Its sightings: what they add up to, and the latest. */
  observed: { counts: ObservationCounts; latest: readonly SightingRecord[] };
  /** The Seen form as sent, with what was wrong with it; empty otherwise. */
  seen: SeenFormState;
  /** The outcome of what was just done (retired, reactivated, a sighting recorded), said only while the record agrees. */
  message?: { kind: 'ok' | 'info' | 'error'; text: string } | undefined;
}

export function ThreatPage({ ctx, threat, links, observed, seen, message }: ThreatPageProps) {
  return (
    <Page title={`Threat ${threat.threat}`} ctx={ctx}>
      {message !== undefined && (
        <div id="threat-message">
          <Notice kind={message.kind}>{message.text}</Notice>
        </div>
      )}
      <p class="muted">{`threat ${threat.tid} · ${threat.category}`}</p>
      <ThreatRecordSection threat={threat} />
      <StateForm ctx={ctx} threat={threat} />
      <SightingsSection ctx={ctx} prefix="threat" action={THREAT_PATHS.seen(threat.tid)} counts={observed.counts} latest={observed.latest} form={seen} level={2} />
      <RiskSection threat={threat} />
      <FeedsSection threat={threat} />
      <TechniquesSection threat={threat} />
      <LinksSection tid={threat.tid} links={links} />
    </Page>
  );
}

/** `retired` as threat.php gives it: true, false, or null when never set (an active threat). */
function RetiredState({ threat }: { threat: ThreatRecord }) {
  if (threat.retired !== true) return <>No: it is active</>;
  return (
    <>
      Yes, since <StampTime stamp={threat.stamp_retired} none="a moment not recorded" />
    </>
  );
}

function ThreatRecordSection({ threat }: { threat: ThreatRecord }) {
  return (
    <section id="threat-record" aria-labelledby="threat-record-heading">
      <h2 id="threat-record-heading">Record</h2>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{threat.threat}</dd>
        <dt>Threat id</dt>
        <dd>{threat.tid}</dd>
        <dt>Category</dt>
        <dd>{threat.category}</dd>
        <dt>Risk</dt>
        <dd>{threat.risk}</dd>
        <dt>Other names</dt>
        <dd>{threat.othernames.length === 0 ? <span class="muted">none</span> : threat.othernames.join(', ')}</dd>
        <dt>Retired</dt>
        <dd id="threat-retired">
          <RetiredState threat={threat} />
        </dd>
        <dt>Added</dt>
        <dd>
          <StampTime stamp={threat.stamp_added} none="not known" />
        </dd>
        <dt>Updated</dt>
        <dd>
          <StampTime stamp={threat.stamp_updated} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <StampTime stamp={threat.stamp_seen} />
        </dd>
        <dt>Latest domain update</dt>
        <dd>
          <StampTime stamp={threat.updated_last_domain} none="no linked domain" />
        </dd>
      </dl>
      <h3>Description</h3>
      {threat.description === null || threat.description.trim() === '' ? <p class="muted">No description.</p> : <p id="threat-description">{threat.description}</p>}
    </section>
  );
}

/**
 * Retire, or Reactivate a retired threat: what `threatgate threats retire|reactivate TID` does (docs/interface.md
 * section 3). A retired threat stays retired when pulls observe it again, so the way back is this button.
 */
function StateForm({ ctx, threat }: { ctx: PageContext; threat: ThreatRecord }) {
  const retired = threat.retired === true;
  return (
    <form id="threat-state" class="toolbar" method="post" action={retired ? THREAT_PATHS.reactivate(threat.tid) : THREAT_PATHS.retire(threat.tid)}>
      <CsrfField ctx={ctx} />
      <button type="submit" class={retired ? undefined : 'secondary'}>
        {retired ? 'Reactivate' : 'Retire'}
      </button>
      <span class="help">
        {retired
          ? 'Makes it active again; it stays active while sources or sightings observe it.'
          : 'Retires it by hand, as threatgate threats retire does; pulls that observe it later leave it retired until it is reactivated.'}
      </span>
    </form>
  );
}
