// The reason a failed pull records (docs/interface.md section 10, "Pulls"): the error's message with every secret the source resolved masked.
import { PullRefused } from '../store/contract/commands.js';
import { FeedFormatError } from './parsers/feed-entry.js';
import { SourceDefinitionError } from './source-definition.js';
import { FetchError } from './transports/fetch-source.js';

/**
 * A run of this many characters of a secret is masked too, not only the whole secret: a format error
 * quotes part of the body (JSON.parse shows its first 10 characters), and a server may echo the token.
 */
const SECRET_FRAGMENT = 6;

/** `text` with each secret, and each run of SECRET_FRAGMENT or more of its characters, replaced by `***`. */
function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    redacted = redacted.split(secret).join('***');
    if (secret.length <= SECRET_FRAGMENT) continue;
    let kept = '';
    for (let i = 0; i < redacted.length; ) {
      // The longest run starting at i that the secret contains (a part of a part is a part: greedy is exact).
      let run = 0;
      while (i + run < redacted.length && secret.includes(redacted.slice(i, i + run + 1))) run++;
      if (run >= SECRET_FRAGMENT) {
        kept += '***';
        i += run;
      } else {
        kept += redacted[i];
        i++;
      }
    }
    redacted = kept;
  }
  return redacted;
}

/** The message of a failed pull, with every secret the source resolved masked (redactSecrets): none may reach a log or the store. */
export function failureReason(error: unknown, secrets: readonly string[]): string {
  const known = error instanceof FetchError || error instanceof FeedFormatError || error instanceof PullRefused || error instanceof SourceDefinitionError;
  const reason = redactSecrets(known ? (error as Error).message : `internal error: ${error instanceof Error ? error.message : String(error)}`, secrets);
  return reason.length > 500 ? `${reason.slice(0, 500)}…` : reason;
}

