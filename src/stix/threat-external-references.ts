// External references (STIX 2.1 §2.5) of a threat: its encyclopedia page, news, and CVE id.

import type { Threat } from '../domain.js';
import { optionalText } from './compact-stix-object.js';
import type { StixExternalReference } from './stix-types.js';
import type { ThreatSdoType } from './threat-sdo-type.js';

// The STIX 2.1 JSON schema ties source_name `cve` and `capec` to ids of their own form.
const CVE_ID = /^CVE-\d{4}-(?:0\d{3}|[1-9]\d{3,})$/;
const RESERVED_SOURCE = /^(?:cve|capec)$/;

/**
 * The threat's external references: for a vulnerability named by a CVE id, `cve` with that id
 * (§4.19 expects it); the `wikireference` as `wikipedia`; each news item with a usable link, its
 * channel as source_name (`news` when blank) and title as description. Links that are not
 * absolute http(s) URLs are dropped rather than exported invalid. Duplicates are dropped.
 */
export function threatExternalReferences(threat: Threat, sdoType: ThreatSdoType): StixExternalReference[] {
  const references: StixExternalReference[] = [];
  const seen = new Set<string>();
  const add = (reference: StixExternalReference): void => {
    const key = JSON.stringify(reference);
    if (!seen.has(key)) {
      seen.add(key);
      references.push(reference);
    }
  };
  const name = threat.threat.trim().toUpperCase();
  if (sdoType === 'vulnerability' && CVE_ID.test(name)) {
    add({ source_name: 'cve', external_id: name });
  }
  const wikiUrl = webUrl(threat.wikireference);
  if (wikiUrl !== undefined) add({ source_name: 'wikipedia', url: wikiUrl });
  for (const item of threat.news) {
    const url = webUrl(item.link);
    if (url === undefined) continue;
    const channel = optionalText(item.channel)?.trim();
    const sourceName = channel === undefined || RESERVED_SOURCE.test(channel.toLowerCase()) ? 'news' : channel;
    const description = optionalText(item.title);
    add(description === undefined ? { source_name: sourceName, url } : { source_name: sourceName, url, description });
  }
  return references;
}

/**
 * The link as an absolute http(s) URL that is also a valid RFC 3986 URI (the schema's `uri`
 * format), or undefined. WHATWG serialization already percent-encodes spaces and non-ASCII, but
 * keeps some characters RFC 3986 forbids after the authority (`|`, `^`, `[`, a bare `%`, a
 * second `#`), so those are percent-encoded as well. Links with credentials are not republished.
 */
function webUrl(link: string | null | undefined): string | undefined {
  const text = optionalText(link)?.trim();
  if (text === undefined || !URL.canParse(text)) return undefined;
  const url = new URL(text);
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  if (!web || url.hostname === '' || url.username !== '' || url.password !== '') return undefined;
  // An http(s) href always has a path, starting at the first `/` after `scheme://host`.
  const pathStart = url.href.indexOf('/', url.protocol.length + 2);
  const [beforeFragment = '', ...fragment] = url.href.slice(pathStart).split('#');
  const tail = fragment.length === 0 ? encodeUriText(beforeFragment) : `${encodeUriText(beforeFragment)}#${encodeUriText(fragment.join('#'))}`;
  return url.href.slice(0, pathStart) + tail;
}

// RFC 3986 §3.3-3.5: path, query and fragment are made of pchar, `/` and `?`; `%` only as an escape.
const NOT_URI_TEXT = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/gu;

function encodeUriText(text: string): string {
  return text.replace(NOT_URI_TEXT, (character) => encodeURIComponent(character));
}
