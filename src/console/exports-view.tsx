// The console's Exports page (docs/interface.md section 14): the form that describes a firewall's list, and what the list would hold.
import { count } from './stamp-time.js';
import type { CollectionConfig } from '../config.js';
import { DEVICE_LIMITS, type DeviceLimit } from '../export/device-limits.js';
import { MAX_LINES } from '../export/export-format.js';
import type { ExportPreview } from '../export/export-preview.js';
import { INDICATOR_TYPES } from '../indicator-types.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { Notice, Page } from './layout.js';

/** The form's fields, as the query names them (GET: describing a list changes nothing). */
export const EXPORT_FIELDS = { collection: 'collection', type: 'type', style: 'style', format: 'format', device: 'device', max: 'max' } as const;
export type ExportField = keyof typeof EXPORT_FIELDS;

/** The form as sent (or its defaults): each field's text, kept to show again. */
export interface ExportsForm {
  collection: string;
  types: string[];
  style: string;
  format: string;
  device: string;
  max: string;
}

/** The list the form describes: its preview, the limit applied and where it came from, and the URL with this server's origin. */
export interface ExportsResult {
  preview: ExportPreview;
  /** The limit `max` carries; undefined: none. */
  limit: number | undefined;
  /** The preset the limit came from (undefined: none chosen, or the operator's own number). */
  device: DeviceLimit | undefined;
  url: string;
}

export interface ExportsPageProps {
  ctx: PageContext;
  collections: readonly CollectionConfig[];
  form: ExportsForm;
  /** What is wrong with each field sent, shown next to it. */
  errors?: Partial<Record<ExportField, string>> | undefined;
  result?: ExportsResult | undefined;
}

const lines = (n: number) => `${count(n)} line${n === 1 ? '' : 's'}`;

export function ExportsPage({ ctx, collections, form, errors = {}, result }: ExportsPageProps) {
  const invalid = (field: ExportField) => (errors[field] === undefined ? undefined : 'true');
  const describedBy = (field: ExportField, help?: string) => [errors[field] === undefined ? undefined : `export-${field}-error`, help].filter(Boolean).join(' ') || undefined;
  const problem = (field: ExportField) =>
    errors[field] !== undefined && (
      <p id={`export-${field}-error`} class="error-text">
        <strong>Error:</strong> {errors[field]}
      </p>
    );
  return (
    <Page title="Exports" ctx={ctx}>
      <p>
        Describe the list a firewall polls (PAN-OS External Dynamic Lists, FortiGate threat feeds, pfBlockerNG, Pi-hole): how many lines it has, whether it fits the device, which lines a
        limit keeps, and the URL to give the device.
      </p>
      <form id="export-form" method="get" action={CONSOLE_PATHS.exports} aria-label="Describe an export">
        <p>
          <label for="export-collection">Collection</label>{' '}
          <select id="export-collection" name={EXPORT_FIELDS.collection} aria-invalid={invalid('collection')} aria-describedby={describedBy('collection')}>
            {collections.map((c) => (
              <option key={c.id} value={c.id} selected={form.collection === c.id}>
                {c.alias === undefined ? c.title : `${c.title} (${c.alias})`}
              </option>
            ))}
          </select>
        </p>
        {problem('collection')}
        <fieldset id="export-types" aria-describedby={describedBy('type', 'export-types-help')}>
          <legend>Types</legend>
          <p id="export-types-help" class="help">
            None ticked: every type. <code>ipv4</code> also lists <code>ip</code>, <code>cidr</code> lists <code>ip</code> and <code>ipv6</code>, <code>hostname</code> lists <code>domain</code>,{' '}
            <code>uri</code> lists <code>url</code>: the types pulls store such values under.
          </p>
          {INDICATOR_TYPES.map((type) => (
            <span class="choice" key={type}>
              <input type="checkbox" id={`export-type-${type}`} name={EXPORT_FIELDS.type} value={type} checked={form.types.includes(type)} />{' '}
              <label for={`export-type-${type}`}>{type}</label>{' '}
            </span>
          ))}
          {problem('type')}
        </fieldset>
        <p>
          <label for="export-style">Style</label>{' '}
          <select id="export-style" name={EXPORT_FIELDS.style} aria-invalid={invalid('style')} aria-describedby={describedBy('style')}>
            <option value="" selected={form.style === ''}>
              Values as stored
            </option>
            <option value="panos" selected={form.style === 'panos'}>
              PAN-OS: URLs without their scheme
            </option>
          </select>
        </p>
        {problem('style')}
        <fieldset id="export-format" aria-describedby={describedBy('format')}>
          <legend>Format</legend>
          {[
            ['txt', 'Text: one value per line (firewalls)'],
            ['csv', 'CSV: value, type, risk, stamp_seen, threats (scripts, spreadsheets)'],
          ].map(([value, label]) => (
            <span class="choice" key={value}>
              <input type="radio" id={`export-format-${value}`} name={EXPORT_FIELDS.format} value={value} checked={(form.format || 'txt') === value} />{' '}
              <label for={`export-format-${value}`}>{label}</label>{' '}
            </span>
          ))}
          {problem('format')}
        </fieldset>
        <p>
          <label for="export-device">Device</label>{' '}
          <select id="export-device" name={EXPORT_FIELDS.device} aria-invalid={invalid('device')} aria-describedby={describedBy('device')}>
            <option value="" selected={form.device === ''}>
              No limit
            </option>
            {DEVICE_LIMITS.map((device) => (
              <option key={device.id} value={device.id} selected={form.device === device.id}>
                {device.maxLines === undefined ? `${device.name} (no limit)` : `${device.name} (${count(device.maxLines)})`}
              </option>
            ))}
          </select>
        </p>
        {problem('device')}
        <p>
          <label for="export-max">Or a limit of your own (lines)</label>{' '}
          <input
            id="export-max"
            name={EXPORT_FIELDS.max}
            type="number"
            min={1}
            max={MAX_LINES}
            step={1}
            value={form.max}
            aria-invalid={invalid('max')}
            aria-describedby={describedBy('max', 'export-max-help')}
          />
        </p>
        <p id="export-max-help" class="help">
          A number here replaces the device&rsquo;s limit: from 1 to {count(MAX_LINES)}.
        </p>
        {problem('max')}
        <button id="export-submit" type="submit">
          Describe the list
        </button>
      </form>
      {result !== undefined && <ExportResult result={result} />}
    </Page>
  );
}

/** What the list holds against the limit, its first lines, and the URL, with how the device gives its key. */
function ExportResult({ result }: { result: ExportsResult }) {
  const { preview, limit, device } = result;
  const limitText = limit === undefined ? (device === undefined ? 'none' : `none (${device.name})`) : device === undefined ? `${lines(limit)} (your own)` : `${lines(limit)} (${device.name})`;
  return (
    <section id="export-result" aria-labelledby="export-result-heading">
      <h2 id="export-result-heading">The list</h2>
      <dl class="facts">
        <dt>Lines in the list</dt>
        <dd id="export-total">{count(preview.total)}</dd>
        <dt>Limit</dt>
        <dd id="export-limit">
          {limitText}
          {device !== undefined && <span class="muted"> {device.note}</span>}
        </dd>
        <dt>Lines the firewall gets</dt>
        <dd id="export-kept">{count(preview.kept)}</dd>
        <dt>Left out by the limit</dt>
        <dd id="export-omitted">{count(preview.omitted)}</dd>
      </dl>
      <div id="export-fits">
        {limit === undefined ? (
          <Notice kind="info">No limit chosen: the firewall gets all {lines(preview.total)}.</Notice>
        ) : preview.omitted === 0 ? (
          <Notice kind="ok">
            It fits: {lines(preview.total)} against a limit of {count(limit)}. The URL still carries the limit, so a list that grows past it stays chosen, not cut short.
          </Notice>
        ) : (
          <Notice kind="warning">
            It does not fit: {lines(preview.total)} against a limit of {count(limit)}. With the limit the firewall gets the {lines(preview.kept)} chosen first and{' '}
            {count(preview.omitted)} are left out.
          </Notice>
        )}
      </div>
      {limit !== undefined && (
        <p id="export-choice">
          A limit keeps the highest-risk lines (critical, high, medium, low, none, unknown), within a risk the most recently seen first (never seen last), then by value, and lists
          them in that order: a device that cuts the list shorter still keeps the most dangerous ones.
        </p>
      )}
      <h3 id="export-first-lines-heading">The first lines the firewall gets</h3>
      {preview.firstLines.length === 0 ? (
        <p id="export-first-lines">The list is empty.</p>
      ) : (
        <pre id="export-first-lines">
          {preview.firstLines.join('\n')}
        </pre>
      )}
      <h3 id="export-url-heading">The URL to give the firewall</h3>
      <p>
        <label for="export-url">URL</label>{' '}
        <input id="export-url" type="text" readOnly value={result.url} size={Math.min(100, result.url.length + 2)} spellcheck={false} aria-describedby="export-url-help" />
      </p>
      <p id="export-url-help" class="help">
        It holds no key. Give the device an API key of a plan with TAXII (an admin key is refused): as HTTP Basic authentication, user <code>taxii2</code> and the key as password
        (PAN-OS, FortiGate), or for a device that takes only a URL (pfBlockerNG, Pi-hole) appended as <code>{result.url.includes('?') ? '&key=KEY' : '?key=KEY'}</code>. Serve it over
        HTTPS: either way the key goes with every poll.
      </p>
    </section>
  );
}
