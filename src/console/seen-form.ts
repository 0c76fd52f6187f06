// The console's Seen form (docs/console-and-operations.md, "Sightings"): its fields read as recordSighting takes them, and a refusal
// as the form shows it, beside the field it names.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { singleParam } from '../http/query-params.js';
import { ObservationRefused, type ObservationField } from '../observations/observation-refused.js';
import type { SightingInput } from '../observations/record-sighting.js';
import type { Reporter } from '../store/contract/observations.js';
import type { PageContext } from './console-deps.js';
import { SEEN_FIELDS, type SeenField, type SeenFormState } from './sightings-view.js';

/** The query the page is redirected to after a sighting: its id, which the page finds among the latest before saying so. */
export const SEEN_OUTCOME = 'seen';

/** `seen`, the sighting a Seen form just recorded: a positive whole number. */
export function seenParam(req: Request): number | undefined {
  const text = singleParam(req, SEEN_OUTCOME);
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) throw new BadRequestError(`Parameter "${SEEN_OUTCOME}" must be a sighting id, a positive whole number.`);
  return Number(text);
}

/** A form field given at most once (the body parser gives a repeated field as an array); absent is ''. */
export function formField(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new BadRequestError(`The form field "${name}" must be given once.`);
  return value;
}

export function readSeenForm(req: Request): SeenFormState {
  return { count: formField(req, SEEN_FIELDS.count), note: formField(req, SEEN_FIELDS.note), at: formField(req, SEEN_FIELDS.at) };
}

/** The form's fields as recordSighting checks them: an empty count is the default (1); digits alone are a count, anything else none (refused as such). */
export function seenInput(form: SeenFormState): Pick<SightingInput, 'count' | 'note' | 'at'> {
  const count = form.count.trim();
  return { count: count === '' ? undefined : /^[0-9]{1,12}$/.test(count) ? Number(count) : Number.NaN, note: form.note, at: form.at };
}

/** The session's admin key as the sighting's reporter (docs/observations.md: the console reports as the session's key). */
export const sessionReporter = (ctx: PageContext): Reporter => ({ keyId: ctx.keyId, label: ctx.keyLabel });

/** How the page names each field of a sighting in a refusal: the form's labels, and the value or threat the form is about. */
const NAMES: Record<ObservationField, string | undefined> = { count: 'Count', at: 'When', note: 'Note', value: 'The value', tid: 'The threat id', target: undefined };
const isFormField = (field: ObservationField): field is SeenField => field === 'count' || field === 'at' || field === 'note';

/** A refusal of recordSighting as the form shows it, with its status; anything else is not the form's to show (undefined). */
export function seenRefusal(error: unknown): { status: number; error: NonNullable<SeenFormState['error']> } | undefined {
  if (!(error instanceof ObservationRefused)) return undefined;
  const name = NAMES[error.field];
  const message = `${name === undefined ? error.message : `${name} ${error.reason}.`} Nothing was recorded.`;
  return { status: error.status, error: { field: isFormField(error.field) ? error.field : undefined, message } };
}
