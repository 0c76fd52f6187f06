// Attributes (services seen) and properties (network, whois, HTTP facts) of a demo indicator, by type.

import type { IndicatorAttributes, JsonObject } from '../domain.js';
import { DAY, toStamp } from './demo-time.js';
import type { IndicatorKind } from './generate-feeds.js';
import { ipv4 } from './indicator-values.js';
import type { Prng } from './prng.js';
import {
  AUTONOMOUS_SYSTEMS,
  CITIES_BY_COUNTRY,
  COUNTRIES,
  DOMAIN_HOST_TYPES,
  IP_HOST_TYPES,
  REGISTRARS,
  SERVICES,
} from './vocabulary.js';

const WEB_SERVICES = SERVICES.filter((service) => service.port === '443' || service.port === '80');

/** Keys are left out now and then, as real enrichment is patchy. */
export function indicatorAttributes(type: IndicatorKind, value: string, prng: Prng): IndicatorAttributes {
  switch (type) {
    case 'ip':
    case 'ipv6':
      return hostAttributes(prng, SERVICES, IP_HOST_TYPES, 0.85);
    case 'domain':
      return hostAttributes(prng, WEB_SERVICES, DOMAIN_HOST_TYPES, 0.5);
    case 'url':
      return urlAttributes(value, prng);
  }
}

function hostAttributes(
  prng: Prng,
  services: typeof SERVICES,
  hostTypes: readonly string[],
  withServices: number,
): IndicatorAttributes {
  const attributes: IndicatorAttributes = {};
  if (prng.chance(withServices)) {
    const picked = prng.sample(services, prng.chance(0.75) ? 1 : 2);
    attributes.port = picked.map((service) => service.port);
    attributes.protocol = picked.map((service) => service.protocol);
    if (prng.chance(0.8)) attributes.technology = picked.map((service) => prng.pick(service.technology));
  }
  if (prng.chance(0.8)) attributes.hosttype = [prng.pick(hostTypes)];
  return attributes;
}

/** A URL's port and protocol follow from its scheme and authority, not from chance. */
function urlAttributes(value: string, prng: Prng): IndicatorAttributes {
  const protocol = value.slice(0, value.indexOf(':')).toLowerCase();
  const explicitPort = /^[a-z]+:\/\/[^/]+:(\d+)\//i.exec(value)?.[1];
  const port = explicitPort ?? (protocol === 'https' ? '443' : '80');
  const attributes: IndicatorAttributes = { port: [port], protocol: [protocol] };
  if (prng.chance(0.5)) attributes.technology = [prng.pick(prng.pick(WEB_SERVICES).technology)];
  return attributes;
}

/** `now` is the demo's anchor (epoch seconds): a domain's whois creation date counts back from it. */
export function indicatorProperties(type: IndicatorKind, value: string, prng: Prng, now: number): JsonObject {
  switch (type) {
    case 'ip':
    case 'ipv6':
      return networkProperties(prng);
    case 'domain':
      return domainProperties(value, prng, now);
    case 'url':
      return urlProperties(value, prng);
  }
}

function networkProperties(prng: Prng): JsonObject {
  const country = prng.pick(COUNTRIES);
  const [asn, asnOrg] = prng.pick(AUTONOMOUS_SYSTEMS);
  const properties: JsonObject = { country, asn, asn_org: asnOrg };
  const cities = CITIES_BY_COUNTRY[country];
  if (cities && prng.chance(0.6)) properties.city = prng.pick(cities);
  return properties;
}

function domainProperties(value: string, prng: Prng, now: number): JsonObject {
  const created = now - prng.int(2, 3000) * DAY;
  const whois: JsonObject = { registrar: prng.pick(REGISTRARS), created: toStamp(created).slice(0, 10) };
  if (prng.chance(0.4)) whois.registrant_country = prng.pick(COUNTRIES);
  const properties: JsonObject = { tld: value.slice(value.lastIndexOf('.') + 1).toLowerCase(), whois };
  if (prng.chance(0.7)) properties.a_records = prng.chance(0.8) ? [ipv4(prng)] : [ipv4(prng), ipv4(prng)];
  return properties;
}

function urlProperties(value: string, prng: Prng): JsonObject {
  const afterScheme = value.slice(value.indexOf('://') + 3);
  const host = afterScheme.slice(0, afterScheme.indexOf('/'));
  const file = afterScheme.slice(afterScheme.lastIndexOf('/') + 1).split('?')[0] ?? '';
  return {
    host,
    http_status: prng.pick([200, 200, 200, 302, 403, 404]),
    content_type: contentType(file),
  };
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  exe: 'application/x-msdownload',
  msi: 'application/x-msi',
  zip: 'application/zip',
  js: 'text/javascript',
  ps1: 'text/plain',
  doc: 'application/msword',
  bin: 'application/octet-stream',
};

/** Extension-less downloads on these paths are IoT bot binaries (x86, mips), hence an executable type. */
function contentType(file: string): string {
  const extension = file.includes('.') ? file.slice(file.lastIndexOf('.') + 1).toLowerCase() : '';
  return CONTENT_TYPES[extension] ?? (extension === '' ? 'application/x-executable' : 'text/html');
}
