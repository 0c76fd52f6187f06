// What the value and threat pages of the console show of sightings (docs/observations.md): how many and the latest, the latest
// sightings with who reported them, and the "Seen" form, with a refused field's problem beside it.
import type { JSX } from 'preact';
import { MAX_NOTE } from '../observations/sighting-input.js';
import type { ObservationCounts, SightingRecord } from '../store/contract/observations.js';
import type { PageContext } from './console-deps.js';
import { CsrfField } from './layout.js';
import { count, StampTime } from './stamp-time.js';

/** The Seen form's fields (with the CSRF field, and on the value page the value). */
export const SEEN_FIELDS = { count: 'count', note: 'note', at: 'at', value: 'value' } as const;
export type SeenField = 'count' | 'note' | 'at';

/** The Seen form as it was sent, and what was wrong with it: shown beside the field it names, or above the form. */
export interface SeenFormState {
  count: string;
  note: string;
  at: string;
  error?: { field: SeenField | undefined; message: string } | undefined;
}

export const EMPTY_SEEN_FORM: SeenFormState = { count: '1', note: '', at: '' };

export interface SightingsProps {
  ctx: PageContext;
  /** `value` or `threat`: the ids of the section and its form start with it. */
  prefix: string;
  /** Where the Seen form posts, and the fields it carries besides its own (the value on the value page). */
  action: string;
  hidden?: Record<string, string>;
  counts: ObservationCounts;
  latest: readonly SightingRecord[];
  form: SeenFormState;
  /** The section's heading level: a section of the page (2) or of its result (3). */
  level: 2 | 3;
}


/** Who reported a sighting: the key's label and id, or the command line. */
export function reporterText(s: SightingRecord): string {
  if (s.reported_by === null) return s.reported_by_label ?? 'command line';
  return s.reported_by_label === null ? `key ${s.reported_by}` : `${s.reported_by_label} (key ${s.reported_by})`;
}

/** What the page says of the sighting just recorded, only while it is among the latest shown: a link cannot make the page claim one that is not there. */
export function seenMessage(id: number | undefined, latest: readonly SightingRecord[]): { kind: 'ok'; text: string } | undefined {
  const sighting = id === undefined ? undefined : latest.find((s) => s.id === id);
  if (sighting === undefined) return undefined;
  const times = sighting.count === 1 ? 'once' : `${sighting.count.toLocaleString('en-US')} times`;
  return { kind: 'ok', text: `Recorded a sighting: seen ${times} at ${sighting.seen_at} UTC, reported by ${reporterText(sighting)}.` };
}

export function SightingsSection({ ctx, prefix, action, hidden = {}, counts, latest, form, level }: SightingsProps) {
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <section id={`${prefix}-sightings`} aria-labelledby={`${prefix}-sightings-heading`}>
      <Heading id={`${prefix}-sightings-heading`}>Sightings</Heading>
      <p id={`${prefix}-sightings-summary`}>
        {counts.sightings === 0 ? (
          'No one has reported seeing it.'
        ) : (
          <>
            {`Seen ${count(counts.sightings)} time${counts.sightings === 1 ? '' : 's'} in all reported sightings; the latest seen `}
            <StampTime stamp={counts.stamp_sighted} />.
          </>
        )}
      </p>
      {latest.length > 0 && (
        <div class="table-wrap">
          <table id={`${prefix}-sightings-table`}>
            <caption>{`The latest ${latest.length === 1 ? 'sighting' : `${latest.length} sightings`}, newest reported first`}</caption>
            <thead>
              <tr>
                <th scope="col">Seen at</th>
                <th scope="col" class="number">Count</th>
                <th scope="col">Reported by</th>
                <th scope="col">Note</th>
                <th scope="col">Reported at</th>
              </tr>
            </thead>
            <tbody>
              {latest.map((s) => (
                <tr key={s.id} data-sighting={s.id}>
                  <th scope="row">
                    <StampTime stamp={s.seen_at} />
                  </th>
                  <td class="number">{count(s.count)}</td>
                  <td>{reporterText(s)}</td>
                  <td>{s.note ?? <span class="muted">none</span>}</td>
                  <td>
                    <StampTime stamp={s.reported_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <SeenForm ctx={ctx} prefix={prefix} action={action} hidden={hidden} form={form} />
    </section>
  );
}

/** A field of the Seen form with its label, its problem when it has one, and its help, tied together for screen readers. */
function Field({ prefix, name, label, help, form, input }: { prefix: string; name: SeenField; label: string; help: string; form: SeenFormState; input: (describedBy: string, invalid: boolean) => JSX.Element }) {
  const problem = form.error?.field === name ? form.error.message : undefined;
  const id = `${prefix}-seen-${name}`;
  return (
    <p class="field">
      <label for={id}>{label}</label>
      {input([problem && `${id}-error`, `${id}-help`].filter(Boolean).join(' '), problem !== undefined)}
      {problem !== undefined && (
        <span id={`${id}-error`} class="error-text">
          <strong>Error:</strong> {problem}
        </span>
      )}
      <span id={`${id}-help`} class="help">
        {help}
      </span>
    </p>
  );
}

function SeenForm({ ctx, prefix, action, hidden, form }: { ctx: PageContext; prefix: string; action: string; hidden: Record<string, string>; form: SeenFormState }) {
  const general = form.error !== undefined && form.error.field === undefined ? form.error.message : undefined;
  return (
    <form id={`${prefix}-seen`} class="seen" method="post" action={action} aria-labelledby={`${prefix}-seen-heading`}>
      <p id={`${prefix}-seen-heading`} class="form-title">
        Report a sighting
      </p>
      <CsrfField ctx={ctx} />
      {Object.entries(hidden).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {general !== undefined && (
        <p id={`${prefix}-seen-error`} class="error-text" role="alert">
          <strong>Error:</strong> {general}
        </p>
      )}
      <Field
        prefix={prefix}
        name="count"
        label="Count"
        help="How many times it was seen then (1 or more)."
        form={form}
        input={(describedBy, invalid) => (
          <input id={`${prefix}-seen-count`} name={SEEN_FIELDS.count} type="number" min={1} step={1} value={form.count} required aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} />
        )}
      />
      <Field
        prefix={prefix}
        name="at"
        label="When (optional)"
        help="When it was seen, in UTC: 2026-03-02 08:00:00, 2026-03-02T08:00:00Z or 2026-03-02. Now when left empty."
        form={form}
        input={(describedBy, invalid) => (
          <input id={`${prefix}-seen-at`} name={SEEN_FIELDS.at} type="text" value={form.at} autocomplete="off" spellcheck={false} aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} />
        )}
      />
      <Field
        prefix={prefix}
        name="note"
        label="Note (optional)"
        help="A case, an alert, where: for whoever reads it next."
        form={form}
        input={(describedBy, invalid) => (
          <input id={`${prefix}-seen-note`} name={SEEN_FIELDS.note} type="text" value={form.note} maxLength={MAX_NOTE} autocomplete="off" aria-invalid={invalid ? 'true' : undefined} aria-describedby={describedBy} />
        )}
      />
      <button type="submit">Seen</button>
    </form>
  );
}
