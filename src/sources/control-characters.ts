// Control characters in what feeds and import files bring (docs/interface.md section 11): names lose them, values holding one are refused.

/**
 * C0 (U+0000-U+001F), DEL (U+007F) and C1 (U+0080-U+009F). A feed that names a threat
 * `"\x1b]0;...\x07"` would otherwise drive the terminal of whoever lists it (ESC and BEL, and C1's
 * CSI, U+009B, which some terminals obey on its own), and line breaks break the logs and lists
 * that show names one a line.
 */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

/**
 * The controls that separate words in a name: tab, LF, VT, FF, CR and NEL (U+0085). A run of them
 * becomes one space, so `Emotet\tEpoch 4` stays two words rather than `EmotetEpoch 4`.
 */
const WORD_BREAKS = /[\t\n\v\f\r\x85]+/g;
/** Every other control character: removed, so `\x1b[31mZeus` keeps only its printable text. */
const OTHER_CONTROLS = /[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]/g;

export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/**
 * A threat's name or alias, or a feed's name, as stored: control characters out, blanks at either
 * end left for the caller (a pull trims its names, an import keeps what the file says). The result
 * may be empty: the caller drops or refuses an empty name as it does any other.
 */
export function withoutControlCharacters(name: string): string {
  if (!CONTROL.test(name)) return name;
  return name.replace(OTHER_CONTROLS, '').replace(WORD_BREAKS, ' ');
}
