// A source definition safe to show (the console's feed page): every secret masked, `${env:NAME}` placeholders kept as written.
import { redactedUrl } from './redacted-url.js';

/** A value made only of `${env:NAME}` references names variables and leaks nothing; anything else may be a secret. */
const ONLY_PLACEHOLDERS = /^(\$\{env:[^}]*\})+$/;

const MASK = '***';

/** The fields whose values are credentials in any format: the Basic password and the lookup-api key. */
const SECRET_FIELDS = new Set(['password', 'key']);

/** An `Authorization` value of an HTTP authentication scheme (RFC 9110 section 11.1) whose credentials are placeholders only: `Bearer ${env:TOKEN}`. */
const SCHEME_AND_PLACEHOLDERS = /^(Basic|Bearer|Digest|DPoP|Token) +(\$\{env:[^}]*\})+$/i;

const maskedValue = (value: unknown): unknown =>
  typeof value === 'string' && !ONLY_PLACEHOLDERS.test(value) && !SCHEME_AND_PLACEHOLDERS.test(value) ? MASK : value;

/**
 * The URL as redactedUrl shows it (query values masked, placeholders kept, no fragment), with the
 * userinfo kept in place but each part masked unless it is placeholders only: the reader sees that the
 * URL carries credentials, and from where, without seeing them.
 */
export function maskedUrl(url: string): string {
  const authority = /^((?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/)([^/\\?#]*)/s.exec(url);
  const shown = redactedUrl(url);
  const at = authority?.[2]?.lastIndexOf('@') ?? -1;
  if (authority === null || at < 0) return shown;
  const userinfo = authority[2]!.slice(0, at);
  // The user ends at the first colon outside a placeholder (`${env:USER}` has one of its own).
  const [, user = '', password] = /^((?:\$\{env:[^}]*\}|[^:])*)(?::(.*))?$/s.exec(userinfo)!;
  const parts = password === undefined ? [user] : [user, password];
  const masked = parts.map((part) => (part === '' || ONLY_PLACEHOLDERS.test(part) ? part : MASK)).join(':');
  return `${authority[1]}${masked}@${shown.slice(authority[1]!.length)}`;
}

/**
 * The stored source object (`feed_sources.definition`, placeholders unresolved) with its secrets
 * masked: the URL's userinfo and query values, `password`, the lookup-api `key`, and every header
 * value (header names are kept). A value that is only `${env:NAME}` references, or an authentication
 * scheme and such references (`Bearer ${env:TOKEN}`), is shown as written.
 */
export function maskedDefinition(source: unknown): unknown {
  if (typeof source !== 'object' || source === null || Array.isArray(source)) return source;
  return Object.fromEntries(
    Object.entries(source).map(([field, value]) => {
      if (field === 'url' && typeof value === 'string') return [field, maskedUrl(value)];
      if (SECRET_FIELDS.has(field)) return [field, maskedValue(value)];
      if (field === 'headers' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
        return [field, Object.fromEntries(Object.entries(value).map(([name, headerValue]) => [name, maskedValue(headerValue)]))];
      }
      return [field, value];
    }),
  );
}
