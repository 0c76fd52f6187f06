// medallion in the HTTP benchmark: loaded with threatgate's first objects, started under gunicorn, its paths checked.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ensureVenv, gunicornArgs, medallionPaths, writeMedallionFiles, type StixManifestEntry } from '../medallion/medallion-server.js';
import { get, getOk } from './client.js';
import { log, type Options } from './common.js';
import { freePort, startServer, type CoreLayout, type Server } from './processes.js';
import { COLLECTION, MANIFEST, OBJECTS, TAIL_OBJECTS, taxiiHeaders, type Envelope } from './scenarios.js';

/** STIX objects loaded into medallion ("a few hundred"): its memory backend filters in O(n²). */
const MEDALLION_OBJECTS = 300;

export interface MedallionSetup {
  server: Server;
  paths: Record<string, string>;
  headers: Record<string, string>;
  objects: number;
}

/** Loads medallion with the first few hundred objects threatgate serves, and checks each scenario answers 200. */
export async function startMedallion(threatgatePort: number, proKey: string, options: Options, layout: CoreLayout, label: string): Promise<MedallionSetup> {
  const gunicorn = ensureVenv(join(options.outDir, 'venv'), log);
  const taxii = taxiiHeaders(proKey);
  const objects = (await getOk<Envelope>(threatgatePort, `${OBJECTS}?limit=${MEDALLION_OBJECTS}`, taxii)).objects ?? [];
  const manifest = (await getOk<{ objects?: StixManifestEntry[] }>(threatgatePort, `${MANIFEST}?limit=${MEDALLION_OBJECTS}`, taxii)).objects ?? [];
  const password = randomBytes(16).toString('hex');
  const configFile = await writeMedallionFiles(join(options.outDir, 'medallion'), {
    collectionId: COLLECTION,
    collectionTitle: 'Indicators',
    objects,
    manifest,
    user: 'taxii2',
    password,
  });
  const headers = taxiiHeaders(password);
  const port = await freePort();
  const server = await startServer({
    name: 'medallion',
    command: gunicorn,
    args: gunicornArgs(configFile, port, options.workers),
    cores: layout.server,
    port,
    logFile: join(options.outDir, 'logs', `medallion-${label}.log`),
    stdoutToLog: true,
    ready: async (p) => (await get(p, '/taxii2/', headers)).status === 200,
  });
  const tail = manifest[Math.max(0, manifest.length - TAIL_OBJECTS - 1)]!.date_added;
  const paths = medallionPaths(COLLECTION, tail);
  for (const [id, path] of Object.entries(paths)) {
    const res = await get(port, path, headers);
    if (res.status !== 200) throw new Error(`medallion answered ${res.status} to ${id} (GET ${path}): ${res.body.toString('utf8').slice(0, 300)}`);
  }
  return { server, paths, headers, objects: objects.length };
}
