// The failure of a compressed feed body that cannot be unpacked (docs/sources.md, "Compressed bodies"): damaged, of a kind not read, or not what its labels say.
import { PullRefused } from '../../store/contract/commands.js';
import { withoutControlCharacters } from '../control-characters.js';

/** A member name as an error quotes it: archives name their members as they like, so no control character and no screenful. */
const NAME_CHARACTERS = 80;

/**
 * The body cannot be unpacked, so the pull fails and changes nothing; the message says what is
 * wrong with it (`the zip archive is damaged: ...`), with member names quoted by `quoteMember`.
 */
export class CompressedBodyError extends PullRefused {}

/** `name` quoted for a message: control characters out, cut at NAME_CHARACTERS. */
export function quoteMember(name: string): string {
  const clean = withoutControlCharacters(name);
  return JSON.stringify(clean.length > NAME_CHARACTERS ? `${clean.slice(0, NAME_CHARACTERS)}…` : clean);
}

/**
 * zlib's reason for refusing its input ("incorrect header check", "unexpected end of file"), which
 * says what is wrong and quotes nothing; undefined for any other error (a read failing, the size limit).
 */
export function zlibReason(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_') && error instanceof Error ? error.message : undefined;
}
