// The status of an error Express or a body parser raised for a bad request, for both surfaces' error renderers.

/** Express reports malformed URLs and the like with a numeric `status`; those stay client errors. */
export function clientStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}
