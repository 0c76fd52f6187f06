// A write's stages hand each other one typed object, not table names in SQL strings (STYLE section
// 15; docs/architecture.md, "Writes"): each group of a write's temporary tables is named in SQL only
// by the folder that owns it. The change set's tables (src/store/changes/change-tables.ts) are named
// only in src/store/changes/, whose functions and ChangeSet the other stages go through; a pull's
// staging tables only by the pull writer (src/store/ingest/); the render tables only by publish
// (src/store/publish/).
//
// SQL is read as the text of the sources' string and template literals (`sql` templates, the
// strings of a bulk insert, a Kysely builder's table names); a comment may name a table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { CHANGE_TABLE_NAMES } from '../../src/store/changes/change-tables.js';
import { PULL_TABLE_NAMES } from '../../src/store/ingest/pull-tables.js';
import { RENDER_TABLE_NAMES } from '../../src/store/publish/render-tables.js';
import { sourceFiles } from './folder-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** Where a name of `names` occurs in a string or template literal of `source`: the name and its line (1-based). */
function namesInLiterals(source: string, names: readonly string[], tsx = false): { name: string; line: number }[] {
  const file = ts.createSourceFile(tsx ? 'source.tsx' : 'source.ts', source, ts.ScriptTarget.Latest, true, tsx ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  // A whole name only: `import_links_old` or `my_import_links` is another table.
  const pattern = new RegExp(`\\b(${names.join('|')})\\b`, 'g');
  const found: { name: string; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      for (const match of node.text.matchAll(pattern)) found.push({ name: match[1]!, line });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const posix = (path: string) => path.split(sep).join('/');

const GROUPS: { what: string; names: readonly string[]; owner: string }[] = [
  { what: "the change set's tables (changes/change-tables.ts)", names: CHANGE_TABLE_NAMES, owner: 'store/changes/' },
  { what: "a pull's staging tables (ingest/pull-tables.ts)", names: PULL_TABLE_NAMES, owner: 'store/ingest/' },
  { what: 'the render tables (publish/render-tables.ts)', names: RENDER_TABLE_NAMES, owner: 'store/publish/' },
];

/** Each literal of src that names a temporary table: its file (relative to src, with forward slashes), line and name. */
const NAMED = sourceFiles(SRC).flatMap((path) => {
  const file = posix(relative(SRC, path));
  const found = namesInLiterals(readFileSync(path, 'utf8'), GROUPS.flatMap((g) => g.names), path.endsWith('.tsx'));
  return found.map(({ name, line }) => ({ file, line, name }));
});

describe('namesInLiterals', () => {
  const names = ['import_links', 'import_keys', 'changed_indicators'];
  const cases: [string, string, string[]][] = [
    ['a sql template', 'await sql`insert into import_links (kind) select 1`.execute(db);', ['import_links']],
    ['the part of a template after a substitution', 'sql`select ${columns} from import_keys where ${condition}`', ['import_keys']],
    ['a string a query builder takes', "db.selectFrom('changed_indicators').selectAll();", ['changed_indicators']],
    ['a plain string', "const table = \"import_links\";", ['import_links']],
    ['a comment', '// reads import_links\n/* and import_keys */\nconst x = 1;', []],
    ['a longer name', "sql`select * from import_links_old`; const t = 'my_import_keys';", []],
    ['an identifier or a property', 'const import_links = { changed_indicators: 1 };', []],
  ];
  for (const [what, source, expected] of cases) {
    it(`finds the names in ${what}: ${JSON.stringify(expected)}`, () => assert.deepEqual(namesInLiterals(source, names).map((f) => f.name), expected));
  }
  it('gives the line of each', () => {
    assert.deepEqual(namesInLiterals('const a = 1;\nconst q = sql`\n  select id from changed_indicators`;', names), [{ name: 'changed_indicators', line: 2 }]);
  });
});

describe("a write's temporary tables", () => {
  for (const { what, names, owner } of GROUPS) {
    describe(what, () => {
      const naming = NAMED.filter((n) => names.includes(n.name));
      it(`are read: src/${owner} names each of them`, () => {
        for (const name of names) assert.ok(naming.some((n) => n.file.startsWith(owner) && n.name === name), `no literal of src/${owner} names ${name}`);
      });
      it(`are named in SQL only inside src/${owner}`, () => {
        assert.deepEqual(naming.filter((n) => !n.file.startsWith(owner)).map((n) => `${n.file}:${n.line} names ${n.name}`), []);
      });
    });
  }
});
