// The lookup API's records as zod schemas (docs/interface.md section 2): threats and feeds here, indicators and pages in indicator-schemas.ts.
import { z } from 'zod';
import { RISK_LEVELS } from '../domain.js';

export const Timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  .meta({ description: 'UTC, `YYYY-MM-DD HH:MM:SS`.', examples: ['2026-01-15 10:00:00'] });
export const Risk = z.enum(RISK_LEVELS).describe('A risk level.');

/** A record's identifier: tid, fid, iid; as a parameter too (lookup-params.ts reads it with this schema). */
export const recordId = z.int().min(1);
/** `page` of a links query (docs/interface.md section 5), read by lookup-params.ts with this schema. */
export const pageNumber = z.int().min(0).max(999_999_999).default(0);
export const count = z.int().min(0);
export const stamp = Timestamp.nullable();
const text = (description: string) => z.string().describe(description);
/** A free-form object. */
export const freeForm = z.record(z.string(), z.unknown());

export const RiskCounts = z
  .strictObject(Object.fromEntries(['unknown', 'low', 'medium', 'high', 'critical', 'retired', 'total', 'none'].map((level) => [level, count])))
  .describe('Linked indicators per risk level; an indicator whose `retired` flag is set counts as `retired`; `total` counts them all.');
export const ValueCounts = z.record(z.string(), count).describe('Each value found, with the number of linked indicators that have it.');
export const PropertyCounts = z
  .record(z.string(), ValueCounts)
  .describe('For each scalar property of the linked indicators (`country`, `asn`, ...), its 25 most frequent values with their counts.');
const attributeCounts = (keys: string[]) =>
  z.strictObject(Object.fromEntries(keys.map((key) => [key, ValueCounts]))).describe('Counts of the linked indicators\u2019 attribute values, per attribute.');
const shared = count.describe('Shared indicators.');

export const Threat = z
  .strictObject({
    tid: recordId,
    threat: text('Its name.'),
    category: text('E.g. `malware`, `apt`, `botnet`; the data decides.'),
    othernames: z.array(z.string()).describe('Aliases.'),
    risk: Risk,
    description: z.string().nullable(),
    notes: z.string().nullable(),
    wikisummary: z.string().nullable(),
    wikireference: text('Address of the encyclopedia article.').nullable(),
    retired: z.boolean().describe('True for a retired threat, false for an active one.').nullable(),
    stamp_added: stamp,
    stamp_updated: stamp,
    stamp_seen: stamp,
    stamp_retired: stamp,
    updated_last_domain: stamp,
    related: z.array(z.strictObject({ tid: recordId, name: z.string(), category: z.string(), risk: Risk, stamp_updated: stamp })),
    attributes: freeForm.describe('Free-form attributes.'),
    ttps: z.array(freeForm).describe('Tactics, techniques and procedures, free-form.'),
    news: z.array(z.strictObject({ title: z.string(), channel: z.string(), icon: z.string(), link: z.string(), stamp: Timestamp, primary: z.int() })),
    comments: z.array(
      z.strictObject({ cid: z.int(), username: z.string(), title: z.string(), comment: z.string(), stamp_added: Timestamp, stamp_updated: Timestamp }),
    ),
    summary: z.strictObject({
      updated_last_domain: stamp,
      attributes: attributeCounts(['technology', 'hosttype', 'protocol', 'port']),
      properties: PropertyCounts,
      feeds: z
        .array(z.strictObject({ fid: recordId, organization: z.string(), name: z.string(), pricing: z.string(), category: z.string(), indicators: shared }))
        .describe('Feeds sharing indicators with the threat.'),
      risk: RiskCounts,
    }),
  })
  .describe('A threat (docs/interface.md section 2.1). Every field is present; the aggregates are computed from the stored links.');

export const Feed = z
  .strictObject({
    fid: recordId,
    feed: text('Its name.'),
    organization: z.string(),
    category: z.string(),
    pricing: text('Free-form, e.g. `free`, `commercial`.'),
    contact: z.strictObject({ name: z.string(), email: z.string(), phone: z.string() }),
    website: z.string(),
    schedule: text('How often it is updated, free-form.'),
    stamp_added: stamp,
    stamp_updated: stamp,
    stamp_pulled: stamp,
    stamp_modified: stamp,
    description: z.string(),
    accesslink: text('Where the feed is obtained: no credentials, query values shown as `***`.'),
    indicators: RiskCounts,
    summary: z.strictObject({
      properties: PropertyCounts,
      attributes: attributeCounts(['technology', 'protocol', 'port']),
      threats: z
        .array(z.strictObject({ indicators: shared, tid: recordId, category: z.string(), stamp_updated: stamp, risk: Risk, name: z.string() }))
        .describe('Threats sharing indicators with the feed.'),
      risk: RiskCounts,
    }),
  })
  .describe('A feed (docs/interface.md section 2.2).');
