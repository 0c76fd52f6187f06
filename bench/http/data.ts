// The HTTP benchmark's data: generated files and imported databases, cached in bench/out/, and API keys.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { generateData } from '../generate-data.js';
import { runCli } from '../import-bench.js';
import { CLI, log, ROOT, sizeLabel, type Options } from './common.js';

export interface Keys {
  pro: string;
  business: string;
}

/** Another process may be writing the file (the generator writes FILE.partial, then renames): wait while it grows. */
async function waitForOtherGenerator(file: string): Promise<void> {
  const partial = `${file}.partial`;
  let lastSize = -1;
  let stalledSince = Date.now();
  while (existsSync(partial) && !existsSync(file)) {
    const size = statSync(partial, { throwIfNoEntry: false })?.size ?? 0;
    if (size !== lastSize) [lastSize, stalledSince] = [size, Date.now()];
    if (Date.now() - stalledSince > 60_000) return; // a dead generator's leftover
    if (lastSize === size) log(`waiting for ${relative(ROOT, partial)} (${(size / 1e6).toFixed(0)} MB so far) …`);
    await new Promise((done) => setTimeout(done, 10_000));
  }
}

async function ensureDataFile(outDir: string, size: number): Promise<string> {
  const file = join(outDir, `data-${sizeLabel(size)}.ndjson`);
  await waitForOtherGenerator(file);
  if (existsSync(file)) return file;
  log(`generating ${relative(ROOT, file)} …`);
  try {
    await generateData(file, { indicators: size, seed: 1 });
  } catch (error) {
    // Two generators of the same file race on the rename; the file is what matters.
    if (!existsSync(file)) throw error;
  }
  return file;
}

/** Imports with the built CLI into a scratch file renamed at the end, so a cached db is always complete. */
async function ensureDb(outDir: string, size: number, dataFile: string, reimport: boolean): Promise<string> {
  const db = join(outDir, `db-${sizeLabel(size)}.sqlite`);
  if (!reimport && existsSync(db) && statSync(db).mtimeMs >= statSync(dataFile).mtimeMs) return db;
  const scratch = join(outDir, `db-${sizeLabel(size)}.importing-${process.pid}.sqlite`);
  log(`importing ${relative(ROOT, dataFile)} into ${relative(ROOT, db)} …`);
  const probe = join(outDir, `import-${sizeLabel(size)}-${process.pid}`);
  const run = await runCli(['import', dataFile, '--db', scratch], [], probe);
  for (const suffix of ['.time', '.probe.json']) await rm(`${probe}${suffix}`, { force: true });
  if (run.exitCode !== 0) throw new Error(`import failed (exit ${run.exitCode}):\n${run.stderr.trim() || run.stdout.trim()}`);
  log(`  ${run.seconds.toFixed(1)} s, peak RSS ${(run.peakRssKb / 1024).toFixed(0)} MB`);
  for (const suffix of ['-wal', '-shm', '']) if (existsSync(`${scratch}${suffix}`)) await rename(`${scratch}${suffix}`, `${db}${suffix}`);
  return db;
}

function createKey(db: string, plan: string): string {
  const result = spawnSync(process.execPath, [CLI, 'keys', 'create', '--plan', plan, '--label', 'http-bench', '--db', db], { cwd: ROOT, encoding: 'utf8' });
  const key = result.stdout.trim();
  if (result.status !== 0 || !/^\S+$/.test(key)) throw new Error(`keys create --plan ${plan} failed: ${result.stderr.trim()}`);
  return key;
}

export async function prepareSize(size: number, options: Options): Promise<{ db: string; keys: Keys }> {
  const dataFile = await ensureDataFile(options.outDir, size);
  const db = await ensureDb(options.outDir, size, dataFile, options.reimport);
  return { db, keys: { pro: createKey(db, 'pro'), business: createKey(db, 'business') } };
}
