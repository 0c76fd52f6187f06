// Imports point one way (STYLE sections 1 and 15): no import cycle between the folders of src, none
// between its files, and no folder imports the composition root.
//
// Rules, as checked here:
// - A folder is a top-level directory of src (api, auth, http, plans, store, taxii, ...). The shared
//   root files (every root file but the composition root; docs/architecture.md, "Folders", lists
//   them, and a test below holds that list to the files on disk) count together as one more folder,
//   ".": every folder imports them, so they can import no folder.
// - The composition root (main.ts, app.ts: COMPOSITION_ROOT) may import any
//   folder; no other file may import it.
// - Imports are the relative ones of every src/**/*.ts: import and import type, export ... from,
//   bare import '...' and import('...').
// - No two files of src import each other, directly or through others, inside one folder or across
//   folders. Type-only imports count: a type is a contract, and two files whose contracts lean on each
//   other cannot be read, moved or split one without the other; a shared type belongs in a file of its
//   own that both import (as src/store/contract and src/sources/formats/csv-options.ts do).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { COMPOSITION_ROOT, describeCycle, folderCycles, folderGraph, folderOf, importEdges, relativeImports, type ImportEdge } from './folder-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

const edges = importEdges(SRC);
const graph = folderGraph(edges);
const architecture = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');

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
    it('names a cycle between files of one folder, each step its import', () => {
      const files = folderGraph([edge('a/one.ts', 'a/two.ts'), edge('a/two.ts', 'a/one.ts'), edge('a/two.ts', 'b/three.ts')], (path) => path);
      assert.deepEqual(folderCycles(files), [['a/one.ts', 'a/two.ts']]);
      assert.equal(describeCycle(files, ['a/one.ts', 'a/two.ts']), 'a/one.ts -> a/two.ts -> a/one.ts');
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

  it('count as "." the shared root files docs/architecture.md lists, and only those', () => {
    const listed = /The shared root files \(([^)]*)\)/.exec(architecture)?.[1];
    assert.ok(listed !== undefined, 'docs/architecture.md, "Folders": no list of the shared root files');
    const documented = [...listed.matchAll(/`([\w.-]+\.tsx?)`/g)].map((m) => m[1]!).sort();
    const onDisk = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') && !COMPOSITION_ROOT.has(entry.name))
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual(documented, onDisk);
  });

  it('import what docs/architecture.md says each imports', () => {
    const doc = architecture;
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

// Inside src/store (docs/architecture.md, "The store, inside"): its folders (contract, db, changes,
// ingest, derive, publish, queries, and the facade's files, ".") point one way, each importing what
// that section's table says; contract/ imports nothing else of the store. Its files point one way as
// every file of src does (below).
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
    for (const folder of ['.', 'changes', 'ingest', 'derive', 'publish', 'queries']) assert.ok(folders.has(folder), `no imports found from src/store/${folder}`);
  });

  it('has folders that import one another without a cycle', () => {
    assert.deepEqual(folderCycles(folders).map((component) => describeCycle(folders, component)), []);
  });

  it('has folders that import what docs/architecture.md says each imports', () => {
    const start = architecture.indexOf('## The store, inside');
    assert.ok(start >= 0, 'docs/architecture.md has no "The store, inside"');
    const section = architecture.slice(start, architecture.indexOf('\n## ', start + 1));
    const documented = new Map<string, string[]>();
    for (const line of section.split('\n')) {
      const cells = line.split('|').map((cell) => cell.trim());
      // A row names its folder as `name/`; its last cell names the store's folders it imports, or none.
      const name = /^`([a-z]+)\/`$/.exec(cells[1] ?? '')?.[1];
      if (name !== undefined) documented.set(name, [...(cells.at(-2) ?? '').matchAll(/`([a-z]+)`/g)].map((m) => m[1]!).sort());
    }
    const inGraph = [...folders.keys()].filter((folder) => folder !== '.');
    assert.deepEqual([...documented.keys()].sort(), [...new Set([...inGraph, 'contract'])].sort(), 'a row per folder of src/store');
    for (const folder of documented.keys()) {
      assert.deepEqual(documented.get(folder), [...(folders.get(folder)?.keys() ?? [])].sort(), `docs/architecture.md, "The store, inside", row ${folder}/`);
    }
  });

  it('has a contract that imports nothing else of the store', () => {
    const offending = edges.filter((e) => storeFolderOf(e.from) === 'contract' && storeFolderOf(e.to) !== undefined && storeFolderOf(e.to) !== 'contract');
    assert.deepEqual(offending.map((e) => `${e.from} imports ${e.to}`), []);
  });
});

describe('src files', () => {
  const files = folderGraph(edges, (path) => path);

  it('are read: files of every folder take part in the graph', () => {
    for (const folder of ['api', 'cli', 'sources', 'store', 'taxii']) assert.ok([...files.keys()].some((file) => file.startsWith(`${folder}/`)), `no imports found from src/${folder}`);
  });

  it('import one another without a cycle, type-only imports included', () => {
    // One cycle of each knot, and the knot's other files: breaking that cycle may leave another.
    const described = folderCycles(files).map((component) => {
      const cycle = describeCycle(files, component);
      const others = component.filter((file) => !cycle.split(' -> ').includes(file));
      return others.length === 0 ? cycle : `${cycle}; also caught in the knot: ${others.join(', ')}`;
    });
    assert.deepEqual(described, []);
  });
});
