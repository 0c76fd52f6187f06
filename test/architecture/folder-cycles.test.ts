// Folders point one way (STYLE section 1): no import cycle between the folders of src, and no folder imports the composition root.
//
// Rules, as checked here:
// - A folder is a top-level directory of src (api, auth, http, plans, store, taxii, ...). The shared
//   root files (config.ts, errors.ts, domain.ts, clock.ts, indicator-types.ts, threads.ts) count
//   together as one more folder, ".": every folder imports them, so they can import no folder.
// - The composition root (main.ts, app.ts: COMPOSITION_ROOT) may import any
//   folder; no other file may import it.
// - Imports are the relative ones of every src/**/*.ts: import and import type, export ... from,
//   bare import '...' and import('...'). Cycles between files of one folder are the folder's own
//   business, except in src/store, whose folders and files are checked too (below).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeCycle, folderCycles, folderGraph, folderOf, importEdges, relativeImports, type ImportEdge } from './folder-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

const edges = importEdges(SRC);
const graph = folderGraph(edges);

describe('src folders', () => {
  describe('relativeImports', () => {
    const cases: [string, string, string[]][] = [
      ['a named import', "import { a } from './a.js';", ['./a.js']],
      ['a type-only import', "import type { A } from '../x/a.js';", ['../x/a.js']],
      ['a re-export', "export { b } from './b.js';\nexport * from './c.js';", ['./b.js', './c.js']],
      ['an import over several lines', "import {\n  a,\n  b,\n} from './ab.js';", ['./ab.js']],
      ['a bare import', "import './side-effect.js';", ['./side-effect.js']],
      ['a dynamic import', "const m = await import('../lazy.js');", ['../lazy.js']],
      ['a package import (not relative)', "import express from 'express';\nimport { join } from 'node:path';", []],
      ['an import in a comment or a string', "// import { x } from './x.js';\nconst s = \"import('./y.js')\";", []],
    ];
    for (const [what, source, expected] of cases) {
      it(`finds ${what}: ${JSON.stringify(expected)}`, () => assert.deepEqual(relativeImports(source), expected));
    }
  });

  describe('folderCycles', () => {
    const edge = (from: string, to: string): ImportEdge => ({ from, to });
    it('names a cycle through three folders with the import behind each step', () => {
      const g = folderGraph([edge('a/one.ts', 'b/two.ts'), edge('b/two.ts', 'c/three.ts'), edge('c/three.ts', 'a/four.ts'), edge('c/three.ts', 'config.ts')]);
      assert.deepEqual(folderCycles(g), [['a', 'b', 'c']]);
      assert.equal(
        describeCycle(g, ['a', 'b', 'c']),
        'a -> b (a/one.ts imports b/two.ts) -> c (b/two.ts imports c/three.ts) -> a (c/three.ts imports a/four.ts)',
      );
    });
    it('counts shared root files as the folder "." and leaves the composition root out', () => {
      assert.equal(folderOf('config.ts'), '.');
      assert.equal(folderOf('main.ts'), undefined);
      const g = folderGraph([edge('config.ts', 'store/store.ts'), edge('store/store.ts', 'errors.ts'), edge('main.ts', 'store/store.ts'), edge('store/x.ts', 'app.ts')]);
      assert.deepEqual(folderCycles(g), [['.', 'store']]);
    });
    it('finds no cycle in a graph that points one way', () => {
      assert.deepEqual(folderCycles(folderGraph([edge('a/x.ts', 'b/y.ts'), edge('b/y.ts', 'config.ts'), edge('a/x.ts', 'config.ts')])), []);
    });
  });

  it('are read: every folder of src takes part in the graph', () => {
    for (const folder of ['api', 'auth', 'http', 'plans', 'store', 'taxii']) assert.ok(graph.has(folder), `no imports found from src/${folder}`);
  });

  it('never import the composition root (main.ts, app.ts), nor do the shared root files', () => {
    const offending = edges.filter((e) => folderOf(e.from) !== undefined && folderOf(e.to) === undefined);
    assert.deepEqual(offending.map((e) => `${e.from} imports ${e.to}`), []);
  });

  it('import one another without a cycle', () => {
    assert.deepEqual(folderCycles(graph).map((component) => describeCycle(graph, component)), []);
  });

  it('import what docs/architecture.md says each imports', () => {
    const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('## Folders'), doc.indexOf('\n## ', doc.indexOf('## Folders') + 1));
    const folders = new Set([...graph.keys(), ...[...graph.values()].flatMap((targets) => [...targets.keys()])]);
    const documented = new Map<string, string[]>();
    for (const line of table.split('\n')) {
      const cells = line.split('|').map((cell) => cell.trim());
      const name = /^`([a-z.]+)`$/.exec(cells[1] ?? '')?.[1];
      if (name === undefined) continue;
      // Backticked names of folders in the last column; anything else there (a package, a note) is prose.
      const imports = [...(cells.at(-2) ?? '').matchAll(/`([a-z.]+)`/g)].map((m) => m[1]!).filter((f) => folders.has(f));
      documented.set(name, imports.sort());
    }
    for (const [folder, targets] of graph) {
      if (folder === '.') continue;
      assert.deepEqual(documented.get(folder), [...targets.keys()].sort(), `docs/architecture.md, row ${folder}`);
    }
  });
});

// Inside src/store (issue 28): its folders (contract, db, ingest, derive, publish, queries, and the
// facade's files, ".") point one way, and so do its files; contract/ imports nothing else of the store.
describe('src/store', () => {
  const inStore = (path: string) => (path.startsWith('store/') ? path.slice('store/'.length) : undefined);
  const storeFolderOf = (path: string) => {
    const inner = inStore(path);
    if (inner === undefined) return undefined;
    const slash = inner.indexOf('/');
    return slash === -1 ? '.' : inner.slice(0, slash);
  };
  const folders = folderGraph(edges, storeFolderOf);

  it('is read: its folders take part in the graph', () => {
    for (const folder of ['.', 'ingest', 'derive', 'publish', 'queries']) assert.ok(folders.has(folder), `no imports found from src/store/${folder}`);
  });

  it('has folders that import one another without a cycle', () => {
    assert.deepEqual(folderCycles(folders).map((component) => describeCycle(folders, component)), []);
  });

  it('has files that import one another without a cycle', () => {
    const files = folderGraph(edges, inStore);
    assert.deepEqual(folderCycles(files).map((component) => describeCycle(files, component)), []);
  });

  it('has a contract that imports nothing else of the store', () => {
    const offending = edges.filter((e) => storeFolderOf(e.from) === 'contract' && storeFolderOf(e.to) !== undefined && storeFolderOf(e.to) !== 'contract');
    assert.deepEqual(offending.map((e) => `${e.from} imports ${e.to}`), []);
  });
});
