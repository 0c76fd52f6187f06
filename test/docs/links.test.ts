// README and the docs stay true to the repository: every relative link reaches a file (and a heading
// of it, when it names one), every `npm run X` they name is a script of package.json, and every
// `threatgate COMMAND` of README's quick start and tour is a command the built CLI lists.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI } from '../helpers/cli-process.js';
import { headingAnchors, headingSlug, inlineCode, linkTargets, splitFences } from './markdown-text.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** The Markdown a reader of the repository starts from. */
const DOCS = ['README.md', 'bench/README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** Each code text of a file, fenced blocks and inline spans alike, with the prose (for commands split across a line). */
function codeAndProse(markdown: string): string[] {
  const { prose, code } = splitFences(markdown);
  return [code.join('\n'), ...prose.flatMap(inlineCode), prose.join('\n')];
}

describe('headingSlug', () => {
  const cases: [string, string][] = [
    ['2.5 Indicator', '25-indicator'],
    ['4.1 `GET /api/threat.php`', '41-get-apithreatphp'],
    ['Structured sources: STIX bundles, TAXII servers, MISP feeds, another threatgate', 'structured-sources-stix-bundles-taxii-servers-misp-feeds-another-threatgate'],
    ['Risk → confidence and indicator_types', 'risk--confidence-and-indicator_types'],
    ['The console behind a proxy', 'the-console-behind-a-proxy'],
  ];
  for (const [heading, slug] of cases) {
    it(`"${heading}" › is #${slug}`, () => assert.equal(headingSlug(heading), slug));
  }

  it('numbers a repeated heading as GitHub does', () => {
    assert.deepEqual([...headingAnchors('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n')], ['a', 'notes', 'notes-1']);
  });
});

describe('README and docs/*.md', () => {
  for (const doc of DOCS) {
    it(`${doc} › every relative link reaches a file, and a heading of it when it names one`, () => {
      const broken: string[] = [];
      for (const target of linkTargets(read(doc))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: and the like leave the repository
        const [path = '', fragment] = target.split('#');
        const file = path === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), decodeURIComponent(path));
        if (!existsSync(file)) {
          broken.push(`${target}: no ${relative(ROOT, file)}`);
          continue;
        }
        if (fragment === undefined) continue;
        if (statSync(file).isDirectory() || !file.endsWith('.md')) broken.push(`${target}: a fragment of a file that has no headings`);
        else if (!headingAnchors(readFileSync(file, 'utf8')).has(decodeURIComponent(fragment))) broken.push(`${target}: no heading #${fragment}`);
      }
      assert.deepEqual(broken, []);
    });
  }

  it('name only `npm run` scripts that package.json has', () => {
    const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
    const unknown = DOCS.flatMap((doc) =>
      codeAndProse(read(doc)).flatMap((text) => [...text.matchAll(/\bnpm\s+run\s+([\w:.-]+)/g)].map((match) => match[1]!).filter((name) => !scripts.includes(name)).map((name) => `${doc}: npm run ${name}`)),
    );
    assert.deepEqual([...new Set(unknown)], []);
  });
});

describe("README's quick start and tour", () => {
  it('run only commands that `threatgate --help` lists', () => {
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, `the built CLI (${CLI}) answers --help; run npm run build first: ${help.stderr}`);
    const usage = help.stdout.split('\n').filter((line) => /^ {2}[a-z]/.test(line)).map((line) => line.trim());
    const readme = read('README.md');
    const tour = readme.slice(0, readme.indexOf('\n## Documentation\n'));
    const { prose, code } = splitFences(tour);
    const commands = [code.join('\n'), ...prose.flatMap(inlineCode)].flatMap((text) => [...text.matchAll(/\bthreatgate ([a-z][\w-]*)(?: ([a-z][\w-]*))?/g)]);
    assert.ok(commands.length >= 4, 'the quick start and tour run threatgate commands');
    const unknown = commands
      .filter(([, command, sub]) => {
        const lines = usage.filter((line) => line === command || line.startsWith(`${command} `));
        // `keys create`, `feeds pull`: a command with subcommands lists each; `why VALUE` takes an argument.
        const subcommands = new Set(lines.map((line) => line.split(' ')[1]).filter((word) => word !== undefined && /^[a-z]/.test(word)));
        return lines.length === 0 || (sub !== undefined && subcommands.size > 0 && !subcommands.has(sub));
      })
      .map(([text]) => text);
    assert.deepEqual(unknown, []);
  });
});
