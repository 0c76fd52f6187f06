// The console's value page (docs/interface.md section 14): a search form for a value, and its provenance below it.
import type { Provenance } from '../sources/value-provenance.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { Page } from './layout.js';
import { ProvenanceView } from './provenance-view.js';

/** The search form's field: `GET /console/value?value=...`. */
export const VALUE_FIELD = 'value';

export interface ValuePageProps {
  ctx: PageContext;
  /** The value as typed, kept in the field. */
  asked?: string | undefined;
  /** The field's problem (an empty or repeated value). */
  error?: string | undefined;
  provenance?: Provenance | undefined;
}

export function ValuePage({ ctx, asked, error, provenance }: ValuePageProps) {
  return (
    <Page title={provenance === undefined ? 'Value' : `Value ${provenance.value.trim()}`} ctx={ctx}>
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
    </Page>
  );
}
