// The console's allowlist pages (docs/interface.md section 14): the config's entries read-only, the run-time ones with who, when and why and a
// Remove form each, an Add form whose dry run (the preview page) comes before the Apply form.
import type { ListedEntry } from '../admin/operator-allowlist.js';
import { addedByText, MAX_REASON } from '../admin/operator-allowlist.js';
import type { AllowlistPreview } from '../store/contract/records.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { CsrfField, Notice, Page } from './layout.js';
import { StampTime } from './stamp-time.js';

/** The forms' fields and where they post (each form also carries the CSRF field). */
export const ALLOWLIST_FIELDS = { entry: 'entry', reason: 'reason' } as const;
export const ALLOWLIST_PATHS = {
  preview: `${CONSOLE_PATHS.allowlist}/preview`,
  apply: `${CONSOLE_PATHS.allowlist}/apply`,
  remove: `${CONSOLE_PATHS.allowlist}/remove`,
} as const;
/** The longest entry the form offers to take (runtime-allowlist.ts refuses longer ones). */
const MAX_ENTRY = 2048;

export interface AddForm {
  entry: string;
  reason: string;
  /** What is wrong with the entry (or the reason), shown next to the field. */
  error?: { field: 'entry' | 'reason'; message: string } | undefined;
}

export interface AllowlistPageProps {
  ctx: PageContext;
  entries: ListedEntry[];
  /** The outcome of what was just done (added, removed, or refused). */
  message?: { kind: 'ok' | 'error'; text: string } | undefined;
  form?: AddForm | undefined;
}

export function AllowlistPage({ ctx, entries, message, form }: AllowlistPageProps) {
  const runtime = entries.filter((e) => e.origin === 'runtime');
  const configured = entries.filter((e) => e.origin === 'config');
  return (
    <Page title="Allowlist" ctx={ctx}>
      {message !== undefined && (
        <div id="allowlist-message">
          <Notice kind={message.kind}>{message.text}</Notice>
        </div>
      )}
      <p>Pulls never store a value the allowlist covers: an address in a block, a domain and every name under it, or an exact value.</p>
      <AddEntryForm ctx={ctx} form={form ?? { entry: '', reason: '' }} />
      <section aria-labelledby="allowlist-runtime-heading">
        <h2 id="allowlist-runtime-heading">Added at run time</h2>
        {runtime.length === 0 ? (
          <p id="allowlist-runtime-empty">No entry has been added at run time.</p>
        ) : (
          <div class="table-wrap">
            <table id="allowlist-runtime">
              <caption>Entries added here, by the operator API or by threatgate allowlist add, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Entry</th>
                  <th scope="col">Added by</th>
                  <th scope="col">Added</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Remove</th>
                </tr>
              </thead>
              <tbody>
                {runtime.map((e) => (
                  <tr key={e.entry}>
                    <th scope="row">
                      <code>{e.entry}</code>
                    </th>
                    <td>{addedByText(e)}</td>
                    <td>
                      <StampTime stamp={e.added_at} />
                    </td>
                    <td>{e.reason ?? 'none given'}</td>
                    <td>
                      <form class="inline" method="post" action={ALLOWLIST_PATHS.remove}>
                        <CsrfField ctx={ctx} />
                        <input type="hidden" name={ALLOWLIST_FIELDS.entry} value={e.entry} />
                        <button type="submit" class="secondary" aria-label={`Remove ${e.entry}`}>
                          Remove
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="allowlist-config-heading">
        <h2 id="allowlist-config-heading">From the configuration</h2>
        <p>These come from the config file&rsquo;s <code>allowlist</code> setting (or its built-in default) and change only there.</p>
        <ul id="allowlist-config">
          {configured.map((e) => (
            <li key={e.entry}>
              <code>{e.entry}</code>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}

function AddEntryForm({ ctx, form }: { ctx: PageContext; form: AddForm }) {
  const problem = (field: 'entry' | 'reason') => (form.error?.field === field ? form.error.message : undefined);
  const describedBy = (field: 'entry' | 'reason') => [problem(field) && `allowlist-${field}-error`, `allowlist-${field}-help`].filter(Boolean).join(' ');
  return (
    <section aria-labelledby="allowlist-add-heading">
      <h2 id="allowlist-add-heading">Add an entry</h2>
      <form id="allowlist-add" method="post" action={ALLOWLIST_PATHS.preview}>
        <CsrfField ctx={ctx} />
        <label for="allowlist-entry">Entry</label>
        <input
          id="allowlist-entry"
          name={ALLOWLIST_FIELDS.entry}
          type="text"
          value={form.entry}
          required
          maxLength={MAX_ENTRY}
          spellcheck={false}
          autocomplete="off"
          aria-invalid={problem('entry') ? 'true' : undefined}
          aria-describedby={describedBy('entry')}
        />
        {problem('entry') && (
          <p id="allowlist-entry-error" class="error-text">
            <strong>Error:</strong> {problem('entry')}
          </p>
        )}
        <p id="allowlist-entry-help" class="help">
          An address (<code>192.0.2.1</code>), a CIDR block (<code>198.51.100.0/24</code>), a domain (<code>example.org</code>, and every name under it) or an exact value.
        </p>
        <label for="allowlist-reason">Reason</label>
        <input
          id="allowlist-reason"
          name={ALLOWLIST_FIELDS.reason}
          type="text"
          value={form.reason}
          maxLength={MAX_REASON}
          autocomplete="off"
          aria-invalid={problem('reason') ? 'true' : undefined}
          aria-describedby={describedBy('reason')}
        />
        {problem('reason') && (
          <p id="allowlist-reason-error" class="error-text">
            <strong>Error:</strong> {problem('reason')}
          </p>
        )}
        <p id="allowlist-reason-help" class="help">
          Optional: why, for the next operator.
        </p>
        <button type="submit">Preview</button>
      </form>
      <p class="help">The preview shows what adding the entry would retire; nothing changes until you apply it.</p>
    </section>
  );
}

export interface PreviewPageProps {
  ctx: PageContext;
  entry: string;
  reason: string;
  preview: AllowlistPreview;
}

/** The dry run: how many stored indicators the entry would retire, the first of them, and the form that applies it. */
export function PreviewPage({ ctx, entry, reason, preview }: PreviewPageProps) {
  const indicators = (n: number) => `${n} stored indicator${n === 1 ? '' : 's'}`;
  return (
    <Page title={`Preview: allowlist ${entry}`} ctx={ctx}>
      <p id="preview-count">
        {preview.count === 0 ? (
          <>
            Adding <code>{entry}</code> would retire no stored indicator; it would keep the values it covers out of every later pull.
          </>
        ) : (
          <>
            Adding <code>{entry}</code> would retire <strong>{indicators(preview.count)}</strong> (risk retired, reason allowlisted) and keep them out of every later pull.
          </>
        )}
      </p>
      {preview.sample.length > 0 && (
        <div class="table-wrap">
          <table id="preview-sample">
            <caption>{preview.sample.length < preview.count ? `The first ${preview.sample.length} of the ${preview.count} indicators it would retire` : 'The indicators it would retire'}</caption>
            <thead>
              <tr>
                <th scope="col">Value</th>
                <th scope="col">Type</th>
                <th scope="col" class="number">Indicator id</th>
              </tr>
            </thead>
            <tbody>
              {preview.sample.map((s) => (
                <tr key={s.iid}>
                  <th scope="row">
                    <a href={`${CONSOLE_PATHS.value}?value=${encodeURIComponent(s.value)}`}>{s.value}</a>
                  </th>
                  <td>{s.type}</td>
                  <td class="number">{s.iid}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p>Reason: {reason === '' ? 'none given' : reason}</p>
      <form id="allowlist-apply" method="post" action={ALLOWLIST_PATHS.apply}>
        <CsrfField ctx={ctx} />
        <input type="hidden" name={ALLOWLIST_FIELDS.entry} value={entry} />
        <input type="hidden" name={ALLOWLIST_FIELDS.reason} value={reason} />
        <button type="submit">{`Apply: add ${entry}`}</button>
      </form>
      <p>
        <a href={CONSOLE_PATHS.allowlist}>Cancel, back to the allowlist</a>
      </p>
    </Page>
  );
}
