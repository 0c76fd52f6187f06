// The Explore page's help at hand (docs/explore.md, "Query language"): the fields of the mode, the operators, wildcards, ages, quoting, and example queries as links.
import { Fragment } from 'preact';
import { INDICATOR_FIELDS, THREAT_FIELDS, type ExploreMode } from '../explore/explore-filters.js';
import { CONSOLE_PATHS } from './console-deps.js';

/**
 * One line for each field the reader takes, keyed by the reader's own lists, so that a field added
 * there fails to compile here until the help says what it means.
 */
const INDICATOR_FIELD_HELP: Record<(typeof INDICATOR_FIELDS)[number], string> = {
  ioc: 'the value: as pasted (it is normalized), a wildcard, an address (itself and the stored blocks holding it) or a block (what lies inside it)',
  indicator: 'the same as ioc',
  value: 'the same as ioc',
  type: 'ip, ipv6, domain, url, email, md5, sha1, sha256, sha512, asn; cidr: stored blocks wider than one address',
  risk: 'none < unknown < low < medium < high < critical; retired with = and != only',
  threat: "a threat's name or other name, or a wildcard",
  feed: "a feed's name, or a wildcard",
  added: 'a date, a time or an age',
  seen: 'a date, a time or an age',
  updated: 'a date, a time or an age',
  retired: 'true or false; or a date, a time or an age',
  attribute: 'a value of any attribute',
  'attribute.NAME': 'a value of the attribute NAME (attribute.port=443)',
  sighted: 'when it was last reported seen: a date, a time or an age',
  sightings: 'how often it was reported seen: a whole number (sightings>0)',
  submissions: 'how many keys submitted it for analysis: a whole number',
};

const THREAT_FIELD_HELP: Record<(typeof THREAT_FIELDS)[number], string> = {
  threat: 'the name or an other name, or a wildcard',
  category: 'malware, phishing, ...',
  risk: 'none < unknown < low < medium < high < critical',
  added: 'a date, a time or an age',
  seen: 'a date, a time or an age',
  retired: 'true or false',
  ttp: 'an ATT&CK technique id; T1059 also matches T1059.001',
  feed: "a feed listing any of the threat's indicators",
  sighted: 'when it was last reported seen itself: a date, a time or an age',
  sightings: 'how often it was reported seen itself: a whole number',
};

/** Queries that show what the language can say, one per idea: a parent's names, a feed's recent high risks, a block, a threat, an attribute. */
export const EXAMPLE_QUERIES: Readonly<Record<ExploreMode, readonly string[]>> = {
  indicators: ['type=domain and ioc=*.example.com', 'risk>=high and seen>7d', 'ioc=198.51.100.0/24 and not risk=retired', 'threat="Cobalt Strike" or threat=Emotet', 'attribute.port=443'],
  threats: ['category=malware and risk>=high', 'ttp=T1059', 'seen>30d and retired=false', 'feed=*abuse*', 'zeus'],
};

/** The Explore page's URL for a query: the form's own fields, so that a link is the form sent. */
export function exploreHref(q: string, mode: ExploreMode, page = 0): string {
  const params = new URLSearchParams({ q, type: mode });
  if (page > 0) params.set('page', String(page));
  return `${CONSOLE_PATHS.explore}?${params}`;
}

export function ExploreSyntax({ mode }: { mode: ExploreMode }) {
  const help: Record<string, string> = mode === 'indicators' ? INDICATOR_FIELD_HELP : THREAT_FIELD_HELP;
  return (
    <details id="explore-syntax" class="syntax">
      <summary>Query syntax</summary>
      <h2 id="explore-fields-heading">Fields of {mode}</h2>
      <dl class="facts">
        {Object.entries(help).map(([field, text]) => (
          <Fragment key={field}>
            <dt>
              <code>{field}</code>
            </dt>
            <dd>{text}</dd>
          </Fragment>
        ))}
      </dl>
      <h2>How a query is written</h2>
      <ul>
        <li>
          A term is <code>FIELD=VALUE</code> or <code>FIELD!=VALUE</code>; risks and times also take <code>&gt;</code>, <code>&gt;=</code>, <code>&lt;</code> and <code>&lt;=</code>.
        </li>
        <li>
          <code>and</code>, <code>or</code>, <code>not</code> and parentheses join terms; <code>and</code> binds tighter than <code>or</code>, and two terms side by side mean{' '}
          <code>and</code>.
        </li>
        <li>
          <code>*</code> is a wildcard over the whole value (<code>ioc=*.example.com</code>, <code>ioc=login*</code>); a wildcard value needs three characters in a row besides{' '}
          <code>*</code>.
        </li>
        <li>
          An age is that long before now: <code>seen&gt;7d</code> is seen within the last 7 days, <code>added&lt;30d</code> added more than 30 days ago (<code>d</code>, <code>h</code>,{' '}
          <code>m</code>). Dates are <code>YYYY-MM-DD</code> or <code>"YYYY-MM-DD HH:MM:SS"</code>, UTC.
        </li>
        <li>
          A value with blanks or parentheses is double-quoted: <code>threat="Cobalt Strike"</code>. Comparisons ignore case.
        </li>
        <li>
          A word alone searches {mode === 'indicators' ? 'values' : 'names'}: <code>zeus</code> is <code>{mode === 'indicators' ? 'ioc=*zeus*' : 'threat=*zeus*'}</code>.
        </li>
      </ul>
      <h2>Examples</h2>
      <ul id="explore-examples">
        {EXAMPLE_QUERIES[mode].map((q) => (
          <li key={q}>
            <a href={exploreHref(q, mode)}>
              <code>{q}</code>
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}
