// The import graph of src/ by folder: which capability imports which (STYLE section 1), read from the sources.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * Root files that wire everything together: they may import any folder, and nothing under src may
 * import them. main.ts is the composition root; app.ts is createApp, which mounts every surface.
 */
export const COMPOSITION_ROOT = new Set(['main.ts', 'app.ts']);

/** The node of the shared root files (config.ts, errors.ts, domain.ts, clock.ts, ...): one folder, ".". */
export const ROOT_FOLDER = '.';

export interface ImportEdge {
  /** Paths relative to src, with forward slashes. */
  from: string;
  to: string;
}

/**
 * The relative modules a source imports: `import ... from`, `import type ... from`, `export ... from`,
 * `import '...'` and `import('...')` with a literal; comments and strings are not imports.
 */
export function relativeImports(source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((name) => name.startsWith('./') || name.startsWith('../'));
}

/** Every TypeScript source under `dir` (.ts and .tsx, declaration files aside), as absolute paths. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const posix = (path: string) => path.split(sep).join('/');

/**
 * Every relative import between files of `srcDir`, resolved to the imported .ts (or .tsx) file. An import that
 * names no file is an error: the graph would otherwise miss an edge.
 */
export function importEdges(srcDir: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(srcDir)) {
    for (const specifier of relativeImports(readFileSync(file, 'utf8'))) {
      // `./x.js` is x.ts, or x.tsx for a module written in JSX (the console's pages).
      const asTs = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      const target = specifier.endsWith('.js') && !existsSync(asTs) ? `${asTs}x` : asTs;
      const to = posix(relative(srcDir, target));
      if (to.startsWith('../')) continue; // outside src (package.json and the like): not a folder
      if (!statSync(target, { throwIfNoEntry: false })?.isFile()) {
        throw new Error(`${posix(relative(srcDir, file))} imports "${specifier}", which is no file under src`);
      }
      edges.push({ from: posix(relative(srcDir, file)), to });
    }
  }
  return edges;
}

/** The top-level folder of a path relative to src; root files are ".", composition-root files undefined. */
export function folderOf(path: string): string | undefined {
  const slash = path.indexOf('/');
  if (slash !== -1) return path.slice(0, slash);
  return COMPOSITION_ROOT.has(path) ? undefined : ROOT_FOLDER;
}

/** Folder → folders it imports, each edge with the first file import that makes it (for messages). */
export type FolderGraph = Map<string, Map<string, ImportEdge>>;

/**
 * The folder graph without the composition root, whose files may import anything. `nodeOf` names
 * the node of a file (its top-level folder by default); files it names no node are left out.
 */
export function folderGraph(edges: ImportEdge[], nodeOf: (path: string) => string | undefined = folderOf): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const edge of edges) {
    const from = nodeOf(edge.from);
    const to = nodeOf(edge.to);
    if (from === undefined || to === undefined || from === to) continue;
    const targets = graph.get(from) ?? new Map<string, ImportEdge>();
    graph.set(from, targets);
    if (!targets.has(to)) targets.set(to, edge);
  }
  return graph;
}

/** Strongly connected components of more than one node (Tarjan), each sorted by name. */
export function folderCycles(graph: FolderGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => a.join().localeCompare(b.join()));
}

/**
 * One shortest cycle through the component's first node, written out with the import behind each
 * step: `store -> import (store/x.ts imports import/y.ts) -> store (...)` between folders, and
 * `cli/a.ts -> cli/b.ts -> cli/a.ts` between files.
 */
export function describeCycle(graph: FolderGraph, component: string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  let last: string | undefined;
  while (queue.length > 0 && last === undefined) {
    const node = queue.shift()!;
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        last = node;
        break;
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  const path = [start];
  for (let node = last!; node !== start; node = previous.get(node)!) path.splice(1, 0, node);
  path.push(start);
  const steps = path.slice(1).map((to, i) => {
    const edge = graph.get(path[i]!)!.get(to)!;
    // In a graph of files the step is the import itself; between folders, name the files behind it.
    return edge.from === path[i] && edge.to === to ? to : `${to} (${edge.from} imports ${edge.to})`;
  });
  return [start, ...steps].join(' -> ');
}
