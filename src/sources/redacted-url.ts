// A source URL safe to display (docs/interface.md section 2.2, `accesslink`): no userinfo, no fragment, no query value but `${env:NAME}` placeholders.

/** A query value a reader may see: nothing to hide, or only `${env:NAME}` references, which name a variable and leak nothing. */
const SHOWN_QUERY_VALUE = /^(\$\{env:[^}]*\})*$/;

/**
 * The URL as configured, for `accesslink`, `feeds list` and logs: userinfo (`user:pass@`)
 * and the fragment removed, each query value shown as `***` with its parameter name kept
 * (`?token=***&list=***`), a part without `=` (`?SECRET`) as `***` too, and `${env:NAME}`
 * placeholders kept, in the path or as a whole query value. Pass the configured URL, never the
 * resolved one. Done on the text, as `new URL` would percent-encode the placeholders; a backslash
 * ends the authority as it does for WHATWG URL parsers on http, https and file.
 */
export function redactedUrl(url: string): string {
  // Always matches: text without a scheme (an accesslink imported as typed) is all path, and still loses its query values.
  const [, scheme = '', authority = '', path = '', query] = /^(?:((?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/)([^/\\?#]*))?([^?#]*)(?:\?([^#]*))?/s.exec(url)!;
  const at = authority.lastIndexOf('@');
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  return `${scheme}${host}${path}${query === undefined ? '' : `?${maskedQuery(query)}`}`;
}

function maskedQuery(query: string): string {
  return query
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return part === '' ? part : '***';
      const value = part.slice(eq + 1);
      return SHOWN_QUERY_VALUE.test(value) ? part : `${part.slice(0, eq)}=***`;
    })
    .join('&');
}
