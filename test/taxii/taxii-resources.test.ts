// The discovery, API root and collection resources (TAXII 2.1 sections 4.1, 4.2, 5.1, 5.2; docs/interface.md section 9), direct.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, type CollectionConfig } from '../../src/config.js';
import { API_ROOT_PATH, apiRootResource, collectionResource, collectionsResource, discoveryResource } from '../../src/taxii/taxii-resources.js';

/** Written out, not imported from src: the exact bytes TAXII clients compare against. */
const TAXII_TYPE = 'application/taxii+json;version=2.1';
const STIX_TYPE = 'application/stix+json;version=2.1';

const defaults = loadConfig();
const renamed = loadConfig({
  overrides: {
    taxii: { title: 'Acme TAXII', description: '', contact: 'cti@acme.example', maxContentLength: 1024, apiRoot: { title: 'acme', description: 'Acme feeds' } },
  },
});

describe('discoveryResource', () => {
  it('with the default configuration › lists the one API root by relative path, as default and in api_roots', () => {
    const body = discoveryResource(defaults);
    assert.deepEqual(Object.keys(body), ['title', 'description', 'contact', 'default', 'api_roots']);
    assert.deepEqual(body, {
      title: 'threatgate TAXII 2.1',
      description: 'Threat intelligence from threatgate, as STIX 2.1',
      contact: 'soc@example.org',
      default: '/taxii2/api/',
      api_roots: ['/taxii2/api/'],
    });
  });

  it('with a configured title, description and contact › carries them, the API root unchanged', () => {
    assert.deepEqual(discoveryResource(renamed), { title: 'Acme TAXII', description: '', contact: 'cti@acme.example', default: '/taxii2/api/', api_roots: ['/taxii2/api/'] });
  });

  // Clients may authenticate with ?key=: a URL built from the request would echo the key back.
  it('whatever the configuration › names the API root with no scheme, host or query string', () => {
    for (const config of [defaults, renamed]) {
      const { default: root, api_roots: roots } = discoveryResource(config);
      for (const url of [root, ...roots]) assert.match(url, /^\/taxii2\/api\/$/);
    }
    assert.equal(API_ROOT_PATH, '/taxii2/api/');
  });
});

describe('apiRootResource', () => {
  const CASES: [condition: string, config: typeof defaults, body: Record<string, unknown>][] = [
    ['the default configuration', defaults, { title: 'threatgate', description: 'Indicators, threats and feed organizations as STIX 2.1 objects', versions: [TAXII_TYPE], max_content_length: 10_485_760 }],
    ['a configured API root and max_content_length', renamed, { title: 'acme', description: 'Acme feeds', versions: [TAXII_TYPE], max_content_length: 1024 }],
  ];
  for (const [condition, config, body] of CASES) {
    it(`with ${condition} › announces TAXII 2.1 only, and max_content_length from taxii.maxContentLength`, () => {
      assert.deepEqual(Object.keys(apiRootResource(config)), ['title', 'description', 'versions', 'max_content_length']);
      assert.deepEqual(apiRootResource(config), body);
    });
  }
});

describe('collectionResource', () => {
  const ID = '6f4bf3a1-1c54-4c1b-9d6e-7c4a2d0e9b11';
  const base: CollectionConfig = { id: ID, title: 'High risk', free: false, filter: { minRisk: 'high' } };
  const readOnly = { can_read: true, can_write: false, media_types: [STIX_TYPE] };
  const CASES: [condition: string, collection: CollectionConfig, body: Record<string, unknown>][] = [
    ['a description and an alias', { ...base, description: 'Risk high or above', alias: 'high-risk' }, { id: ID, title: 'High risk', description: 'Risk high or above', alias: 'high-risk', ...readOnly }],
    ['no description', { ...base, alias: 'high-risk' }, { id: ID, title: 'High risk', alias: 'high-risk', ...readOnly }],
    ['no alias', { ...base, description: 'Risk high or above' }, { id: ID, title: 'High risk', description: 'Risk high or above', ...readOnly }],
    ['neither description nor alias', base, { id: ID, title: 'High risk', ...readOnly }],
    ['an empty description', { ...base, description: '' }, { id: ID, title: 'High risk', ...readOnly }],
    ['the free flag set', { ...base, free: true, filter: { sample: 10 } }, { id: ID, title: 'High risk', ...readOnly }],
  ];
  for (const [condition, collection, body] of CASES) {
    it(`with ${condition} › is read-only STIX 2.1, optional fields only when set, nothing of the filter or free flag`, () => {
      const resource = collectionResource(collection);
      assert.deepEqual(resource, body);
      assert.deepEqual(Object.keys(resource), Object.keys(body), 'fields in the order of TAXII 2.1 section 5.2');
    });
  }
});

describe('collectionsResource', () => {
  it('with the default configuration › lists the test collection, then Indicators, with their stable ids', () => {
    assert.deepEqual(collectionsResource(defaults), {
      collections: [
        {
          id: '981c4916-ebb2-4567-aece-54ae970c4230',
          title: 'Test collection',
          description: 'A small fixed sample of indicators, readable with any valid key',
          alias: 'test',
          can_read: true,
          can_write: false,
          media_types: [STIX_TYPE],
        },
        {
          id: 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37',
          title: 'Indicators',
          description: 'Every indicator, threat and feed organization in threatgate',
          alias: 'indicators',
          can_read: true,
          can_write: false,
          media_types: [STIX_TYPE],
        },
      ],
    });
  });

  it('with configured saved views › lists every collection in configuration order, each as collectionResource renders it', () => {
    const collections: CollectionConfig[] = [
      { id: '0b7c1a52-5a0e-4f4e-8a53-2b7c6f1d9e01', title: 'Feed 7', free: false, filter: { fid: 7 } },
      { id: 'f2d0c9a8-3b1e-4c7d-9e6f-5a4b3c2d1e00', title: 'Domains', alias: 'domains', free: false, filter: { types: ['domain'] } },
      { id: '981c4916-ebb2-4567-aece-54ae970c4230', title: 'Sample', free: true, filter: { sample: 5 } },
    ];
    const config = loadConfig({ overrides: { collections } });
    const { collections: listed } = collectionsResource(config);
    assert.deepEqual(listed.map((c) => c.id), collections.map((c) => c.id));
    assert.deepEqual(listed, config.collections.map(collectionResource));
    assert.ok(listed.every((c) => c.can_write === false));
  });
});
