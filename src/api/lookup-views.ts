// Pure mappers from store records to the response bodies of docs/interface.md sections 2.1-2.5, fields in the
// order they list them.
import { redactedUrl } from '../sources/source-definition.js';
import type { FeedRecord, IndicatorRecord, LinkedIndicator, LinksPage, RelatedThreat, ThreatRecord } from '../store/contract/records.js';
import type { IndicatorRef } from '../store/contract/store.js';
import type { IndicatorLinks } from './indicator-links.js';

export function toThreatBody(t: ThreatRecord, related: RelatedThreat[]) {
  return {
    tid: t.tid,
    threat: t.threat,
    category: t.category,
    othernames: t.othernames,
    risk: t.risk,
    description: t.description,
    notes: t.notes,
    wikisummary: t.wikisummary,
    wikireference: t.wikireference,
    retired: t.retired,
    stamp_added: t.stamp_added,
    stamp_updated: t.stamp_updated,
    stamp_seen: t.stamp_seen,
    stamp_retired: t.stamp_retired,
    updated_last_domain: t.updated_last_domain,
    related: related.map((r) => ({ tid: r.tid, name: r.name, category: r.category, risk: r.risk, stamp_updated: r.stamp_updated })),
    attributes: t.attributes,
    ttps: t.ttps,
    news: t.news,
    comments: t.comments,
    summary: t.summary,
  };
}

export function toFeedBody(f: FeedRecord) {
  return {
    fid: f.fid,
    feed: f.feed,
    organization: f.organization,
    category: f.category,
    pricing: f.pricing,
    contact: f.contact,
    website: f.website,
    schedule: f.schedule,
    stamp_added: f.stamp_added,
    stamp_updated: f.stamp_updated,
    stamp_pulled: f.stamp_pulled,
    stamp_modified: f.stamp_modified,
    description: f.description,
    // Masked again on the way out (docs/interface.md section 2.2): rows written before query values were masked, and
    // accesslinks imported as typed, may still carry a token; anonymous callers read this field.
    accesslink: redactedUrl(f.accesslink),
    indicators: f.indicators,
    summary: f.summary,
  };
}

function toLinkedIndicatorBody(l: LinkedIndicator) {
  return { iid: l.iid, indicator: l.indicator, type: l.type, risk: l.risk, stamp_linked: l.stamp_linked, summary: { properties: l.properties } };
}

/**
 * Spec 4.3: a result that fits on one page carries only `results`; otherwise every page carries
 * `page_current`, and `page_next` while more remain. A page past the end is empty, with page_current.
 */
export function toLinksBody(page: number, links: LinksPage) {
  const results = links.rows.map(toLinkedIndicatorBody);
  if (page === 0 && !links.more) return { results };
  return links.more ? { page_current: page, page_next: page + 1, results } : { page_current: page, results };
}

/**
 * The indicator of docs/interface.md section 2.5, Pulsedive's model with the fields threatgate has. `retired` is 1/0,
 * as Pulsedive writes it; `retired_reason` and `stamp_retired` are null unless it retired. Its observations
 * (docs/observations.md) follow the attributes: the sum of its sightings' counts, the latest seen, and the
 * distinct keys that submitted it for analysis.
 */
export function toIndicatorBody(i: IndicatorRecord) {
  return {
    iid: i.iid,
    type: i.type,
    indicator: i.indicator,
    risk: i.risk,
    retired: i.retired ? 1 : 0,
    retired_reason: i.retired_reason,
    stamp_added: i.stamp_added,
    stamp_updated: i.stamp_updated,
    stamp_seen: i.stamp_seen,
    stamp_retired: i.stamp_retired,
    threats: i.threats.map((t) => ({ tid: t.tid, name: t.name, category: t.category, risk: t.risk, stamp_linked: t.stamp_linked })),
    feeds: i.feeds.map((f) => ({ fid: f.fid, name: f.name, category: f.category, organization: f.organization, pricing: f.pricing, stamp_linked: f.stamp_linked })),
    attributes: i.attributes,
    sightings: i.sightings,
    stamp_sighted: i.stamp_sighted,
    submissions: i.submissions,
  };
}

const toRelatedBody = (r: IndicatorRef) => ({ iid: r.iid, indicator: r.indicator, type: r.type, risk: r.risk });

/**
 * An indicator's links (docs/lookup-api.md, "An indicator's links and properties"): `results` maps each
 * relation to its page of indicators. Paged as linked indicators are (section 5 of docs/interface.md):
 * `results` alone when every relation fits on page 0, else `page_current`, and `page_next` while any
 * relation has more.
 */
export function toIndicatorLinksBody(page: number, links: IndicatorLinks) {
  const groups = Object.entries(links);
  const results = Object.fromEntries(groups.map(([relation, group]) => [relation, group.rows.map(toRelatedBody)]));
  const more = groups.some(([, group]) => group.more);
  if (page === 0 && !more) return { results };
  return more ? { page_current: page, page_next: page + 1, results } : { page_current: page, results };
}
