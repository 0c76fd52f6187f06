// The console's value page (docs/interface.md section 14): a search form for a value, its provenance below it, and for a stored
// indicator its sightings, the "Seen" form and its submissions for analysis (docs/observations.md).
import type { ValueObservations } from '../observations/value-observations.js';
import type { Provenance } from '../sources/value-provenance.js';
import type { ObservationCounts } from '../store/contract/observations.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { Notice, Page } from './layout.js';
import { ProvenanceView } from './provenance-view.js';
import { EMPTY_SEEN_FORM, SEEN_FIELDS, seenMessage, SightingsSection, type SeenFormState } from './sightings-view.js';
import { StampTime } from './stamp-time.js';

/** The search form's field: `GET /console/value?value=...`. */
export const VALUE_FIELD = 'value';
/** The longest value the page explains (a URL longer than any a browser or proxy passes on is no indicator anyone met). */
export const MAX_VALUE = 4096;
/** Where the Seen form posts: the value (as asked) and the form's fields. */
export const VALUE_SEEN_PATH = `${CONSOLE_PATHS.value}/seen`;

/** A stored indicator's observations: what they add up to, and the latest sightings and submissions. */
export type ValueObserved = ValueObservations & { counts: ObservationCounts };

/** What the page shows of a value it was asked: its provenance, and its observations when an indicator of it is stored. */
export interface ValueView {
  provenance: Provenance;
  observed: ValueObserved | undefined;
}

export interface ValuePageProps {
  ctx: PageContext;
  /** The value as typed, kept in the field. */
  asked?: string | undefined;
  /** The field's problem (an empty or repeated value). */
  error?: string | undefined;
  provenance?: Provenance | undefined;
  observed?: ValueObserved | undefined;
  /** The Seen form as sent, with what was wrong with it; empty otherwise. */
  seen?: SeenFormState | undefined;
  /** The sighting the Seen form just recorded (`seen=ID`), said only while it is among the latest. */
  seenId?: number | undefined;
}

export function ValuePage({ ctx, asked, error, provenance, observed, seen, seenId }: ValuePageProps) {
  const message = observed === undefined ? undefined : seenMessage(seenId, observed.sightings);
  // A refusal with no form to show it beside (the indicator is not stored, or no longer): above the result.
  const orphan = observed === undefined ? seen?.error?.message : undefined;
  return (
    <Page title={provenance === undefined ? 'Value' : `Value ${provenance.value.trim()}`} ctx={ctx}>
      {message !== undefined && (
        <div id="value-message">
          <Notice kind={message.kind}>{message.text}</Notice>
        </div>
      )}
      {orphan !== undefined && (
        <div id="value-message">
          <Notice kind="error">{orphan}</Notice>
        </div>
      )}
      <form id="value-search" class="search" method="get" action={CONSOLE_PATHS.value} role="search" aria-label="Explain a value">
        <label for="value-input">Value</label>
        <input
          id="value-input"
          name={VALUE_FIELD}
          type="search"
          value={asked ?? ''}
          required
          spellcheck={false}
          autocomplete="off"
          aria-invalid={error === undefined ? undefined : 'true'}
          aria-describedby={error === undefined ? 'value-help' : 'value-error value-help'}
        />
        {error !== undefined && (
          <p id="value-error" class="error-text">
            <strong>Error:</strong> {error}
          </p>
        )}
        <p id="value-help" class="help">
          An address, CIDR block, domain, URL, email or hash, in any spelling: it is normalized as pulls normalize it.
        </p>
        <button type="submit">Explain</button>
      </form>
      {provenance !== undefined && <ProvenanceView p={provenance} />}
      {provenance !== undefined && observed !== undefined && (
        <>
          <SightingsSection
            ctx={ctx}
            prefix="value"
            action={VALUE_SEEN_PATH}
            hidden={{ [SEEN_FIELDS.value]: provenance.value }}
            counts={observed.counts}
            latest={observed.sightings}
            form={seen ?? EMPTY_SEEN_FORM}
            level={2}
          />
          <SubmissionsSection observed={observed} />
        </>
      )}
    </Page>
  );
}

/** Who submitted it for analysis (`analyze.php`), the latest first: each key's id and when. */
function SubmissionsSection({ observed }: { observed: ValueObserved }) {
  const keys = observed.counts.submissions;
  return (
    <section id="value-submissions" aria-labelledby="value-submissions-heading">
      <h2 id="value-submissions-heading">Submissions for analysis</h2>
      <p>{keys === 0 ? 'No key has submitted it for analysis.' : `Submitted for analysis by ${keys.toLocaleString('en-US')} key${keys === 1 ? '' : 's'}.`}</p>
      {observed.submissions.length > 0 && (
        <table>
          <caption>The latest submissions, newest first</caption>
          <thead>
            <tr>
              <th scope="col" class="number">Submission</th>
              <th scope="col">Key</th>
              <th scope="col">Submitted at</th>
            </tr>
          </thead>
          <tbody>
            {observed.submissions.map((s) => (
              <tr key={s.qid}>
                <th scope="row" class="number">
                  {s.qid}
                </th>
                <td>
                  <code>{s.key_id}</code>
                </td>
                <td>
                  <StampTime stamp={s.submitted_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
