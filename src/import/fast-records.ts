// Quick acceptance of well-formed link and indicator records, the bulk of any import. Whatever this
// does not accept goes to the zod schemas, which decide and word the error.
import { RISK_LEVELS, type Indicator, type IndicatorAttributes, type Link } from '../domain.js';
import { indicatorTypeOf } from '../indicator-types.js';
import { hasControlCharacter } from '../sources/control-characters.js';
import { isValidStamp } from '../stix/stix-time.js';

const RISKS: ReadonlySet<string> = new Set(RISK_LEVELS);
const INDICATOR_FIELDS: ReadonlySet<string> = new Set([
  'iid', 'indicator', 'type', 'risk', 'stamp_added', 'stamp_updated', 'stamp_seen', 'retired', 'attributes', 'properties',
]);

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= Number.MAX_SAFE_INTEGER;

/** A plain JSON object, without an own `__proto__` key (left to zod, which has its own view of it). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.hasOwn(value, '__proto__');
}

const NOT_ACCEPTED = Symbol('not accepted');

function optionalStamp(value: unknown): string | null | typeof NOT_ACCEPTED {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' && isValidStamp(value) ? value : NOT_ACCEPTED;
}

function optionalFlag(value: unknown): boolean | null | typeof NOT_ACCEPTED {
  if (value === undefined || value === null) return null;
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  return NOT_ACCEPTED;
}

function attributesOf(value: unknown): IndicatorAttributes | typeof NOT_ACCEPTED {
  if (value === undefined) return {};
  if (!isPlainObject(value)) return NOT_ACCEPTED;
  const out: IndicatorAttributes = {};
  for (const key of Object.keys(value)) {
    const list = value[key];
    if (!Array.isArray(list)) return NOT_ACCEPTED;
    const values: string[] = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      // Whole numbers become their decimal string, as in record-schemas.ts (which says why).
      if (typeof item === 'string') values[i] = item;
      else if (Number.isSafeInteger(item)) values[i] = String(item);
      else return NOT_ACCEPTED;
    }
    out[key] = values;
  }
  return out;
}

/** The same value as linkSchema gives, or undefined when this record needs the schema's judgement. */
export function acceptLink(raw: unknown): Link | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { iid, fid, tid, stamp_linked } = raw;
  let fields = 0;
  for (const _ in raw) fields++;
  if (fields !== 3 || !isId(iid) || typeof stamp_linked !== 'string' || !isValidStamp(stamp_linked)) return undefined;
  if (isId(fid)) return { iid, fid, stamp_linked };
  if (isId(tid)) return { iid, tid, stamp_linked };
  return undefined;
}

/** The same value as indicatorSchema gives, or undefined when this record needs the schema's judgement. */
export function acceptIndicator(raw: unknown): Indicator | undefined {
  if (!isPlainObject(raw)) return undefined;
  for (const key in raw) if (!INDICATOR_FIELDS.has(key)) return undefined;
  const { iid, indicator, risk, properties } = raw;
  if (!isId(iid) || typeof indicator !== 'string' || indicator.length < 1 || indicator.length > 8192 || hasControlCharacter(indicator)) return undefined;
  const type = typeof raw.type === 'string' ? indicatorTypeOf(raw.type) : undefined;
  if (type === undefined || typeof risk !== 'string' || !RISKS.has(risk)) return undefined;
  const stamp_added = optionalStamp(raw.stamp_added);
  const stamp_updated = optionalStamp(raw.stamp_updated);
  const stamp_seen = optionalStamp(raw.stamp_seen);
  const retired = optionalFlag(raw.retired);
  const attributes = attributesOf(raw.attributes);
  if (stamp_added === NOT_ACCEPTED || stamp_updated === NOT_ACCEPTED || stamp_seen === NOT_ACCEPTED) return undefined;
  if (retired === NOT_ACCEPTED || attributes === NOT_ACCEPTED) return undefined;
  if (properties !== undefined && !isPlainObject(properties)) return undefined;
  return {
    iid,
    indicator,
    type,
    risk: risk as Indicator['risk'],
    stamp_added,
    stamp_updated,
    stamp_seen,
    retired,
    attributes,
    properties: properties === undefined ? {} : { ...properties },
  } as Indicator;
}
