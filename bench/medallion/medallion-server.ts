// medallion, the OASIS TAXII 2.1 reference server, as http-bench.ts's reference: venv, memory-backend data, config, gunicorn command.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REQUIREMENTS = join(dirname(fileURLToPath(import.meta.url)), 'requirements.txt');

/** medallion serves each API root at `/<name>/`; discovery stays at `/taxii2/`. */
export const MEDALLION_API_ROOT = 'api';

/** One gthread worker per threatgate worker: keep-alive works (a sync worker closes every connection). */
const THREADS_PER_WORKER = 4;

export interface StixManifestEntry {
  id: string;
  date_added: string;
  version: string;
  media_type: string;
}

export interface MedallionData {
  collectionId: string;
  collectionTitle: string;
  objects: unknown[];
  manifest: StixManifestEntry[];
  user: string;
  password: string;
}

/** The requirements' hash, kept in the venv so a changed pin reinstalls. */
function requirementsStamp(): string {
  return createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex');
}

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}):\n${(result.stderr || result.stdout).trim().slice(-2000)}`);
}

/** Creates `venv` and installs the pinned requirements, unless it already holds them; returns gunicorn's path. */
export function ensureVenv(venv: string, log: (line: string) => void): string {
  const gunicorn = join(venv, 'bin', 'gunicorn');
  const stampFile = join(venv, 'threatgate-bench-requirements.sha256');
  const stamp = requirementsStamp();
  if (existsSync(gunicorn) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return gunicorn;
  log(`installing medallion into ${venv} (pinned in bench/medallion/requirements.txt) …`);
  if (!existsSync(join(venv, 'bin', 'python'))) run('python3', ['-m', 'venv', venv]);
  run(join(venv, 'bin', 'pip'), ['install', '--quiet', '-r', REQUIREMENTS]);
  run(join(venv, 'bin', 'python'), ['-c', 'import medallion, gunicorn']);
  writeFileSync(stampFile, stamp);
  return gunicorn;
}

/** medallion's memory backend reads one JSON document: discovery, then each API root with its collections. */
function memoryBackendDocument(data: MedallionData): unknown {
  const collection = (id: string, title: string, objects: unknown[], manifest: StixManifestEntry[]) => ({
    id,
    title,
    can_read: true,
    can_write: false,
    media_types: ['application/stix+json;version=2.1'],
    objects,
    manifest,
  });
  return {
    '/discovery': {
      title: 'medallion (threatgate bench)',
      description: 'The same STIX objects threatgate serves, for comparison',
      contact: 'soc@example.org',
      default: `/${MEDALLION_API_ROOT}/`,
      api_roots: [`/${MEDALLION_API_ROOT}/`],
    },
    [MEDALLION_API_ROOT]: {
      information: {
        title: 'threatgate',
        description: 'Indicators, threats and feed organizations as STIX 2.1 objects',
        versions: ['application/taxii+json;version=2.1'],
        max_content_length: 10485760,
      },
      status: [],
      // Like threatgate's: an empty test collection and the one holding the objects.
      collections: [
        collection('981c4916-ebb2-4567-aece-54ae970c4230', 'Test collection', [], []),
        collection(data.collectionId, data.collectionTitle, data.objects, data.manifest),
      ],
    },
  };
}

/**
 * Writes the data file and the config medallion 3.0 reads in `load_app(path)`: `backend` (module,
 * module_class, filename), `users` (name → password, for HTTP Basic) and `taxii.max_page_size`.
 */
export async function writeMedallionFiles(dir: string, data: MedallionData): Promise<string> {
  await mkdir(dir, { recursive: true });
  const dataFile = join(dir, 'data.json');
  const configFile = join(dir, 'config.json');
  await writeFile(dataFile, JSON.stringify(memoryBackendDocument(data)));
  const config = {
    backend: { module: 'medallion.backends.memory_backend', module_class: 'MemoryBackend', filename: dataFile },
    users: { [data.user]: data.password },
    taxii: { max_page_size: 1000 },
  };
  await writeFile(configFile, `${JSON.stringify(config, null, 2)}\n`);
  return configFile;
}

/** `gunicorn … 'medallion:load_app("config.json")'` (gunicorn calls the app factory with the literal argument). */
export function gunicornArgs(configFile: string, port: number, workers: number): string[] {
  return [
    '--workers', String(workers),
    '--worker-class', 'gthread',
    '--threads', String(THREADS_PER_WORKER),
    '--keep-alive', '65',
    '--bind', `127.0.0.1:${port}`,
    '--log-level', 'warning',
    `medallion:load_app(${JSON.stringify(configFile)})`,
  ];
}

/** The medallion path of each TAXII scenario that has a counterpart there. */
export function medallionPaths(collectionId: string, tailAddedAfter: string): Record<string, string> {
  const objects = `/${MEDALLION_API_ROOT}/collections/${collectionId}/objects/`;
  return {
    'taxii-discovery': '/taxii2/',
    'taxii-collections': `/${MEDALLION_API_ROOT}/collections/`,
    'taxii-objects': `${objects}?limit=100`,
    'taxii-poll-tail': `${objects}?added_after=${tailAddedAfter}`,
  };
}

/** Why the other TAXII scenarios have no medallion figure. */
export const MEDALLION_GAPS: Record<string, string> = {
  'taxii-objects-deep':
    "medallion's memory backend keeps `next` as a server-side session that each request consumes (and expires after 30 s), so one deep page cannot be requested repeatedly; with a few hundred objects there is no page 5,000 objects deep either",
  'taxii-objects-query': 'medallion has no query-string authentication',
};
