// A sighting or a submission refused (docs/observations.md, "Errors"): what is wrong, the field it is
// in, and the HTTP status it is on the operator API; nothing was written.
import { AppError } from '../errors.js';

/** The fields of a sighting (`target`: neither or both of `value` and `tid` given) and of a submission. */
export type ObservationField = 'target' | 'value' | 'tid' | 'note' | 'at' | 'count';

/**
 * 400 for input that is malformed, 404 for a value or tid the store does not have. `reason` reads
 * after the field's name (`must be a whole number from 1 to 1000000000`), so each surface names the
 * field its own way: the operator API and the console as the body's field, the command line as its
 * flag. The message is the operator API's.
 */
export class ObservationRefused extends AppError {
  constructor(
    status: 400 | 404,
    readonly field: ObservationField,
    readonly reason: string,
    message = `Field "${field}" ${reason}.`,
  ) {
    super(status, status === 400 ? 'bad_request' : 'not_found', message);
  }
}

export const badField = (field: ObservationField, reason: string) => new ObservationRefused(400, field, reason);
