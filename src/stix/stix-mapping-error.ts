// The one error type of the STIX mapping: the caller (the TAXII export) decides to skip or to fail.
import { ThreatgateError } from '../errors.js';

/** Why a record could not be mapped to STIX 2.1. */
export type StixMappingErrorCode =
  | 'unsupported-indicator-type'
  | 'invalid-indicator-value'
  | 'invalid-timestamp'
  | 'invalid-reference'
  | 'invalid-record'
  | 'invalid-uuid';

/**
 * Thrown by the pure STIX mappers when a record cannot become valid STIX 2.1 (an indicator type
 * with no pattern, a malformed stamp, an id that is not a STIX identifier). It carries no HTTP
 * status: it is data, not a request error; the export layer maps it (e.g. skips the record).
 */
export class StixMappingError extends ThreatgateError {
  readonly code: StixMappingErrorCode;

  constructor(code: StixMappingErrorCode, message: string, options?: { cause?: unknown }) {
    // No stack: the error is an answer about a record (an import meets thousands of them), and
    // capturing where it was thrown cost more than rendering an object.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.code = code;
  }
}
