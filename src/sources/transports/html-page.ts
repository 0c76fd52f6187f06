// Whether a fetched body is an HTML page rather than the list it should be: the one-body transport refuses such a body (docs/interface.md section 10, "The sanity gate").
const HTML_START = /^(?:\uFEFF)?\s*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<!--)/i;

/**
 * Whether a body is an HTML page (a login, an error or a "this list moved" page), by its first
 * bytes: some servers send plain lists as text/html, so the Content-Type alone does not decide.
 */
export function htmlPage(head: Buffer): boolean {
  return HTML_START.test(head.toString('utf8'));
}
