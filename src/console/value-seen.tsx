// The console's value page with its observations (docs/console-and-operations.md, "Sightings"): a value's provenance, its sightings and
// submissions, and the "Seen" form's route, which records a sighting as the session's admin key and comes back to the page.
import type { RequestHandler } from 'express';
import { BadRequestError } from '../errors.js';
import { recordSighting } from '../observations/record-sighting.js';
import { valueObservations } from '../observations/value-observations.js';
import { createAllowlist } from '../sources/allowlist.js';
import { provenanceOf } from '../sources/value-provenance.js';
import { CONSOLE_PATHS, pageContext, type ConsoleDeps } from './console-deps.js';
import { sendPage } from './render.js';
import { formField, readSeenForm, SEEN_OUTCOME, seenInput, seenRefusal, sessionReporter } from './seen-form.js';
import { SEEN_FIELDS } from './sightings-view.js';
import { MAX_VALUE, ValuePage, type ValueView } from './value-page.js';

/** Reads what the value page shows of a value: its provenance, and for a stored indicator its observations. */
export type ValueReader = (value: string) => Promise<ValueView>;

export function createValueReader(deps: ConsoleDeps): ValueReader {
  const { store, config } = deps;
  const allowlist = createAllowlist(config.allowlist);
  return async (value) => {
    const provenance = await provenanceOf(value, { store, allowlist, collections: config.collections });
    const iid = provenance.indicator?.iid ?? null;
    if (iid === null) return { provenance, observed: undefined };
    const [counts, latest] = await Promise.all([store.observationCounts({ iid }), valueObservations(store, iid)]);
    // Gone between the two reads (a feed deleted meanwhile): shown as it was found, without observations.
    if (counts === undefined) return { provenance, observed: undefined };
    return { provenance, observed: { counts, ...latest } };
  };
}

/**
 * The Seen form of the value page: a sighting of the value, reported as the session's key, then the
 * page again (303: a reload does not report it twice), which says what was recorded. A refused field
 * comes back beside the form, with the form as it was sent; nothing was recorded.
 */
export function createValueSeen(deps: ConsoleDeps, read: ValueReader): RequestHandler {
  const { store, clock, logger } = deps;
  return async (req, res) => {
    const ctx = pageContext(res);
    const value = formField(req, SEEN_FIELDS.value);
    if (value.trim() === '') throw new BadRequestError('The form named no value. Nothing was recorded.');
    if (value.length > MAX_VALUE) throw new BadRequestError(`A value is at most ${MAX_VALUE} characters. Nothing was recorded.`);
    const form = readSeenForm(req);
    try {
      const sighting = await recordSighting(store, { value, ...seenInput(form) }, sessionReporter(ctx), clock);
      logger.info('console sighting', { client: ctx.keyId, iid: sighting.iid, sighting: sighting.id });
      res.redirect(303, `${CONSOLE_PATHS.value}?${new URLSearchParams({ value, [SEEN_OUTCOME]: String(sighting.id) })}`);
    } catch (error) {
      const refused = seenRefusal(error);
      if (refused === undefined) throw error;
      sendPage(res, <ValuePage ctx={ctx} asked={value} {...await read(value)} seen={{ ...form, error: refused.error }} />, refused.status);
    }
  };
}
