// External references of threats: wiki page, news items, CVE ids, and URLs valid as RFC 3986 URIs.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewsItem, Threat } from '../../src/domain.js';
import { threatExternalReferences } from '../../src/stix/threat-external-references.js';

const aThreat = (overrides: Partial<Threat> = {}): Threat => ({
  tid: 7, threat: 'Zeus', category: 'malware', risk: 'high', othernames: [], description: null, notes: null,
  wikisummary: null, wikireference: 'https://en.wikipedia.org/wiki/Zeus_(malware)', retired: false,
  stamp_added: null, stamp_updated: null, stamp_seen: null, stamp_retired: null,
  attributes: {}, ttps: [], news: [], comments: [], related: [], ...overrides,
});
const news = (overrides: Partial<NewsItem> = {}): NewsItem => ({
  title: 'Zeus is back', channel: 'Example News', icon: '', link: 'https://news.example/zeus', stamp: '2024-01-01 00:00:00', primary: 1,
  ...overrides,
});

describe('threatExternalReferences', () => {
  describe('with a wiki reference and news', () => {
    it('lists them in order, each with a source_name, without duplicates', () => {
      const references = threatExternalReferences(aThreat({
        news: [news(), news({ channel: '', title: '', link: 'https://news.example/2' }), news({ channel: 'cve' }), news()],
      }), 'malware');
      assert.deepEqual(references, [
        { source_name: 'wikipedia', url: 'https://en.wikipedia.org/wiki/Zeus_(malware)' },
        { source_name: 'Example News', url: 'https://news.example/zeus', description: 'Zeus is back' },
        { source_name: 'news', url: 'https://news.example/2' },
        { source_name: 'news', url: 'https://news.example/zeus', description: 'Zeus is back' },
      ]);
    });
  });

  describe('with links that are not usable http(s) URLs', () => {
    it('drops them, credentials included', () => {
      const references = threatExternalReferences(aThreat({
        wikireference: 'not a url',
        news: [news({ link: 'javascript:alert(1)' }), news({ link: '' }), news({ link: 'https://user:pw@news.example/' })],
      }), 'malware');
      assert.deepEqual(references, []);
    });
  });

  describe('with a link holding characters RFC 3986 forbids', () => {
    it('percent-encodes them', () => {
      const references = threatExternalReferences(aThreat({
        wikireference: null, news: [news({ link: 'https://news.example/a b|c^d?q=%zz#x#y' })],
      }), 'malware');
      assert.equal(references[0]?.url, 'https://news.example/a%20b%7Cc%5Ed?q=%25zz#x%23y');
    });
  });

  describe('for a vulnerability named by a CVE id', () => {
    it('starts with the cve reference', () => {
      const references = threatExternalReferences(aThreat({ threat: 'cve-2021-44228' }), 'vulnerability');
      assert.deepEqual(references[0], { source_name: 'cve', external_id: 'CVE-2021-44228' });
    });
  });

  describe('for a malware named like a CVE id', () => {
    it('adds no cve reference', () => {
      assert.equal(threatExternalReferences(aThreat({ threat: 'CVE-2021-44228' }), 'malware')[0]?.source_name, 'wikipedia');
    });
  });
});
