// One size of the HTTP benchmark: data, servers, scenarios, the interleaved measurement and the servers' memory.
import { join, relative } from 'node:path';
import { MEDALLION_GAPS } from '../medallion/medallion-server.js';
import { log, ROOT, sizeLabel, type Options } from './common.js';
import { prepareSize } from './data.js';
import { startMedallion, type MedallionSetup } from './medallion.js';
import { measure, ratio, type Figures, type Target } from './measure.js';
import { stopServer, treeRssMB, type CoreLayout, type Server } from './processes.js';
import { discoverScenarios, type Scenario } from './scenarios.js';
import { checkReplay, recordResponses, startReplay, startThreatgate, type ReplayKind } from './servers.js';
import type { LoadSettings } from './wrk.js';

export interface ScenarioResult {
  id: string;
  path: string;
  note?: string;
  threatgate: Figures;
  bare?: Figures;
  express?: Figures;
  least?: Figures;
  medallion?: Figures;
  medallionPath?: string;
  medallionNote?: string;
  /** Median req/s over median req/s; null where one side was not measured or completed nothing. */
  ratios: {
    threatgateToBare: number | null;
    threatgateToExpress: number | null;
    expressToBare: number | null;
    threatgateToLeast: number | null;
    leastToBare: number | null;
    threatgateToMedallion: number | null;
  };
}

export interface SizeResult {
  size: number;
  label: string;
  db: string;
  scenarios: ScenarioResult[];
  rssMB: { threatgateBefore: number; threatgateAfter: number; threatgateProcesses: number; bare?: number; express?: number; least?: number; medallion?: number };
  medallion: { objects: number; skipped?: string } | null;
}

interface Servers {
  threatgate: Server;
  bare?: Server;
  express?: Server;
  least?: Server;
  medallion?: Server;
}

export async function benchSize(size: number, options: Options, layout: CoreLayout, load: LoadSettings): Promise<SizeResult> {
  const label = sizeLabel(size);
  const { db, keys } = await prepareSize(size, options);
  const servers: Partial<Servers> = {};
  try {
    servers.threatgate = await startThreatgate(db, options, layout, label);
    const tgPort = servers.threatgate.port;
    log(`threatgate (${label}) on port ${tgPort}; scenarios:`);
    const scenarios = await discoverScenarios(tgPort, keys, options);
    const responses = join(options.outDir, `bare-responses-${label}.json`);
    const recorded = await recordResponses(tgPort, scenarios, responses);
    const replays: ReplayKind[] = ['bare', ...(options.expressFloor ? ['express' as const] : []), ...(options.leastWork ? ['least' as const] : [])];
    for (const kind of replays) {
      const server = await startReplay(kind, responses, options, layout, label);
      servers[kind] = server;
      await checkReplay(server, recorded, kind);
    }
    let medallion: MedallionSetup | null = null;
    let medallionSkipped: string | undefined;
    if (options.medallion && scenarios.some((s) => s.id.startsWith('taxii-'))) {
      try {
        medallion = await startMedallion(tgPort, keys.pro, options, layout, label);
        servers.medallion = medallion.server;
      } catch (error) {
        medallionSkipped = (error as Error).message;
        log(`medallion not measured: ${medallionSkipped}`);
      }
    }
    const rssBefore = treeRssMB(servers.threatgate.child.pid!);
    const results: ScenarioResult[] = [];
    for (const s of scenarios) results.push(await benchScenario(s, servers as Servers, medallion, options, load));
    const rssAfter = treeRssMB(servers.threatgate.child.pid!);
    return {
      size,
      label,
      db: relative(ROOT, db),
      scenarios: results,
      rssMB: {
        threatgateBefore: rssBefore.mb,
        threatgateAfter: rssAfter.mb,
        threatgateProcesses: rssAfter.processes,
        bare: treeRssMB(servers.bare!.child.pid!).mb,
        ...(servers.express ? { express: treeRssMB(servers.express.child.pid!).mb } : {}),
        ...(servers.least ? { least: treeRssMB(servers.least.child.pid!).mb } : {}),
        ...(servers.medallion ? { medallion: treeRssMB(servers.medallion.child.pid!).mb } : {}),
      },
      medallion: medallion ? { objects: medallion.objects } : options.medallion ? { objects: 0, skipped: medallionSkipped ?? 'no TAXII scenario' } : null,
    };
  } finally {
    for (const server of Object.values(servers)) if (server) await stopServer(server);
  }
}

async function benchScenario(s: Scenario, servers: Servers, medallion: MedallionSetup | null, options: Options, load: LoadSettings): Promise<ScenarioResult> {
  const targets: Target[] = [
    { name: 'threatgate', server: servers.threatgate, path: s.path, headers: s.headers },
    { name: 'bare', server: servers.bare!, path: s.path, headers: s.headers },
  ];
  if (servers.express) targets.push({ name: 'express', server: servers.express, path: s.path, headers: s.headers });
  if (servers.least) targets.push({ name: 'least', server: servers.least, path: s.path, headers: s.headers });
  const medallionPath = medallion?.paths[s.id];
  if (medallion && medallionPath) targets.push({ name: 'medallion', server: medallion.server, path: medallionPath, headers: medallion.headers });
  log(`measuring ${s.id}: ${targets.map((t) => t.name).join(', ')} × ${options.rounds} rounds of ${options.duration} s …`);
  const measured = await measure(targets, options, load);
  const tg = measured.get('threatgate')!;
  const [bare, express, least, ref] = [measured.get('bare'), measured.get('express'), measured.get('least'), measured.get('medallion')];
  const gap = medallion && !(ref && medallionPath) ? MEDALLION_GAPS[s.id] : undefined;
  const result: ScenarioResult = {
    id: s.id,
    path: s.path.replace(/key=[^&]+/, 'key=KEY'),
    ...(s.note ? { note: s.note } : {}),
    threatgate: tg,
    ...(bare ? { bare } : {}),
    ...(express ? { express } : {}),
    ...(least ? { least } : {}),
    ...(ref && medallionPath ? { medallion: ref, medallionPath } : {}),
    ...(gap ? { medallionNote: gap } : {}),
    ratios: {
      threatgateToBare: ratio(tg, bare),
      threatgateToExpress: ratio(tg, express),
      expressToBare: ratio(express, bare),
      threatgateToLeast: ratio(tg, least),
      leastToBare: ratio(least, bare),
      threatgateToMedallion: ratio(tg, ref),
    },
  };
  const rps = (name: string, f: Figures | undefined) => (f ? `; ${name} ${f.rps.toFixed(0)} req/s` : '');
  log(`  threatgate ${tg.rps.toFixed(0)} req/s p99 ${tg.p99Ms.toFixed(2)} ms${rps('bare', bare)}${rps('express', express)}${rps('least work', least)}${rps('medallion', ref)}`);
  return result;
}
