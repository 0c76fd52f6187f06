// The error hierarchy: every error threatgate throws extends ThreatgateError, and each surface
// (HTTP, command line, pull records) renders them in one place.

type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'conflict'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

/**
 * The base of threatgate's own errors: its name is its class's, and what went wrong underneath
 * travels as `cause` (never in the message, which is shown to people).
 */
export class ThreatgateError extends Error {
  constructor(message?: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }
}

/** An error whose message is safe to show to the client. */
export class AppError extends ThreatgateError {
  readonly status: number;
  readonly code: ErrorCode;
  /** Extra response headers (Allow, Retry-After, WWW-Authenticate). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: ErrorCode, message: string, options?: { cause?: unknown; headers?: Record<string, string> }) {
    super(message, options);
    this.status = status;
    this.code = code;
    this.headers = Object.freeze({ ...(options?.headers ?? {}) });
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, 'bad_request', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message: string, headers?: Record<string, string>) {
    super(401, 'unauthorized', message, headers ? { headers } : undefined);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, allow: readonly string[]) {
    super(405, 'method_not_allowed', `Method ${method} is not allowed here; use ${allow.join(', ')}.`, {
      headers: { Allow: allow.join(', ') },
    });
  }
}

export class NotAcceptableError extends AppError {
  constructor(message: string) {
    super(406, 'not_acceptable', message);
  }
}

/** The resource is busy with something that must not run twice (a feed's pull, under its lease). */
export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

export class RateLimitError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'rate_limited', message, { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(503, 'unavailable', message, options);
  }
}

/** A bad setting: stops start-up with one line naming the setting. */
export class ConfigError extends ThreatgateError {}

/** A bad command line (an unknown flag value, a missing argument): the command prints it and exits 2. */
export class UsageError extends ThreatgateError {}

/** A bad import record: names its position (line or array index) and the reason. */
export class ImportError extends ThreatgateError {
  constructor(
    readonly position: string,
    readonly reason: string,
  ) {
    super(`${position}: ${reason}`);
  }
}
