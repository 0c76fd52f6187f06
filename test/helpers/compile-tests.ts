// Compiles the sources and the tests to JavaScript once for `npm test`, in a copy of the working tree,
// so each test file runs on plain `node --test` instead of loading every module through tsx.
//
// Why: each test file is a process of its own, and through tsx every module it loads (the whole of
// src/ behind app.ts) passes tsx's loader hooks; compiled once, the same files cost less CPU each
// (bench/README.md, "Test suite wall time", has the figures). The copy holds every file of the working
// tree (tracked or new, not ignored) beside its compiled JavaScript, so what a test reads relative to
// itself (fixtures, docs, the TypeScript sources it inspects or runs through tsx) is where it expects
// it; dist/ is linked, not copied, as the CLI tests run the build `npm run build` just made.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Under node_modules/.cache, which git ignores, and below the repository's node_modules, which the compiled files resolve their packages from. */
const TEST_BUILD = join(ROOT, 'node_modules', '.cache', 'threatgate-test');

function copyWorkingTree(): void {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  for (const file of listed.split('\0')) {
    // A tracked file deleted in the working tree is still listed; it is gone for the tests too.
    if (file === '' || !existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(TEST_BUILD, file)), { recursive: true });
    cpSync(join(ROOT, file), join(TEST_BUILD, file));
  }
  symlinkSync(join(ROOT, 'dist'), join(TEST_BUILD, 'dist'), 'dir');
}

/** tsconfig.json's settings (src, test and bench), emitting only: `npm run build` and `npm run typecheck` check the types. */
function compile(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.json'), '--noCheck', '--outDir', TEST_BUILD], { cwd: ROOT, stdio: 'inherit' });
}

rmSync(TEST_BUILD, { recursive: true, force: true });
copyWorkingTree();
compile();
