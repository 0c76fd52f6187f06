// The `hosts` format (docs/sources.md, "Feed shapes"): `ADDRESS NAME [NAME...]` lines as StevenBlack, URLhaus's hostfile, Pi-hole and AdGuard lists publish them; every name a domain.
import { isIP } from 'node:net';
import { decodeText } from '../../text/decode-text.js';
import { splitLines } from '../../text/line-splitter.js';
import type { FeedBody } from './feed-body.js';
import type { FeedBatch, FeedEntry } from './feed-entry.js';

/** A whole-line comment starts with one of these, as in the `text` format. */
const COMMENT_LINE = /^(?:#|;|\/\/)/;

/**
 * The names a hosts file gives its own machine, in the preamble every such list copies from the
 * system's (`127.0.0.1 localhost`, `255.255.255.255 broadcasthost`, `ff02::1 ip6-allnodes`): they
 * are not what the list blocks, so they are left out without being counted.
 */
const LOCAL_NAMES = new Set(['localhost', 'localhost.localdomain', 'localdomain', 'local', 'broadcasthost']);
const IP6_LOCAL_NAME = /^ip6-[a-z]+$/;

/** An address as hosts files write them, a zone included (`fe80::1%lo0`). */
function isAddress(token: string): boolean {
  const cut = token.indexOf('%');
  return isIP(cut < 0 ? token : token.slice(0, cut)) !== 0;
}

function isLocalName(name: string): boolean {
  const lower = name.toLowerCase();
  return LOCAL_NAMES.has(lower) || IP6_LOCAL_NAME.test(lower);
}

/**
 * Every name of a hosts body, as a `domain` entry. On a line of two or more words the first is the
 * address the name is sent to (a sink such as 0.0.0.0 or 127.0.0.1, or any address) and is not a
 * value; each further word is a name. A line of one word is AdGuard's and others' domains-only
 * form: a name is taken, an address alone gives nothing and is counted as skipped. Comments are as
 * in `text` (whole lines starting with `#`, `;` or `//`) and a `#` ends the line's data. Left out
 * without being counted: the preamble's local names (LOCAL_NAMES, `ip6-*`) and a name that is
 * itself an address (StevenBlack's `0.0.0.0 0.0.0.0`). A line of several words whose first is no
 * address is no hosts line: skipped and counted, with its reason.
 */
export async function* readHosts(body: FeedBody): AsyncGenerator<FeedBatch> {
  for await (const { first, lines } of splitLines(decodeText(body))) {
    const entries: FeedEntry[] = [];
    const batch: FeedBatch = { entries, skipped: 0 };
    const skip = (position: string, reason: string) => {
      batch.skipped++;
      (batch.skipReasons ??= []).push(`${position}: ${reason}`);
    };
    lines.forEach((line, i) => {
      const trimmed = line.trim();
      if (trimmed === '' || COMMENT_LINE.test(trimmed)) return;
      const hash = trimmed.indexOf('#');
      const words = (hash < 0 ? trimmed : trimmed.slice(0, hash)).split(/\s+/).filter((word) => word !== '');
      const position = `line ${first + i}`;
      const [head = ''] = words;
      if (words.length === 1) {
        if (isAddress(head)) skip(position, 'an address without a name');
        else if (!isLocalName(head)) entries.push({ value: head, type: 'domain', position });
        return;
      }
      if (!isAddress(head)) return skip(position, `${JSON.stringify(head.length > 64 ? `${head.slice(0, 64)}...` : head)} is not an address: a hosts line is ADDRESS NAME [NAME...]`);
      for (const name of words.slice(1)) {
        if (!isLocalName(name) && !isAddress(name)) entries.push({ value: name, type: 'domain', position });
      }
    });
    yield batch;
  }
}
