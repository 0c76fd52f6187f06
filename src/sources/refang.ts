// A value as analysts paste it, made a value again (docs/lookup-api.md, "Values as analysts paste them"):
// reports and tickets defang what they quote (`hxxps://evil[.]example`, `192.0.2[.]1`) so that
// nobody clicks it, and copy addresses with the port they were seen on (`192.0.2.1:8080`).

/** Defanged schemes and the scheme each stands for; matched at the start, in any case. */
const SCHEMES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^hxxps(?=:)/i, 'https'],
  [/^hxxp(?=:)/i, 'http'],
  [/^fxp(?=:)/i, 'ftp'],
];

/**
 * The bracketed forms of `.`, `:`, `://` and `@` that defanging writes: `[.]`, `(.)`, `{.}`,
 * `[dot]`, `(dot)`, `{dot}`, `[:]`, `[://]`, `[@]`, `[at]` (brackets of any of the three kinds, words
 * in any case, blanks inside and around them dropped: `evil [.] example`). A bare `dot` or `at` word
 * is left alone: it may be the value.
 */
const BRACKETED = /\s*[[({]\s*(\.|dot|:\/\/|:|@|at)\s*[\])}]\s*/gi;

function unbracket(match: string, inner: string): string {
  const lowered = inner.toLowerCase();
  if (lowered === 'dot') return '.';
  if (lowered === 'at') return '@';
  return inner;
}

/** `ADDRESS:PORT` with an IPv4 address, `[IPv6]:PORT` or `[IPv6]`: the address alone. */
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/;
const BRACKETED_IPV6 = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i;
/** A domain name with a port (`evil.example:443`): the name alone. A URL keeps its port. */
const NAME_WITH_PORT = /^([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.[a-z][a-z0-9-]*):(\d{1,5})$/i;

/** The highest TCP or UDP port: text after the colon beyond it is no port, so the value is left as it is. */
const MAX_PORT = 65_535;

/** The address or name a pattern above took, when what followed it (if anything) is a port. */
function withoutPort(match: RegExpExecArray | null): string | undefined {
  if (match === null) return undefined;
  const port = match[2];
  return port === undefined || Number(port) <= MAX_PORT ? match[1] : undefined;
}

/**
 * `raw` with its defanging undone: the scheme (`hxxp`, `hxxps`, `fxp`), the bracketed separators,
 * and a port after an address or domain name. Text that is not defanged comes back as given
 * (trimmed), so a value that was already a value is never changed.
 */
export function refang(raw: string): string {
  let value = raw.trim();
  if (value === '') return value;
  value = value.replace(BRACKETED, unbracket);
  for (const [pattern, scheme] of SCHEMES) {
    if (pattern.test(value)) {
      value = value.replace(pattern, scheme);
      break;
    }
  }
  return withoutPort(IPV4_WITH_PORT.exec(value)) ?? withoutPort(BRACKETED_IPV6.exec(value)) ?? withoutPort(NAME_WITH_PORT.exec(value)) ?? value;
}
