// Shared by the HTTP benchmark's modules: paths, the options, logging and number formats.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'main.js');

export interface Options {
  sizes: number[];
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  workers: number;
  scenarios: string[] | null;
  medallion: boolean;
  /** Also measure the recorded replies served through a bare Express 5 app. */
  expressFloor: boolean;
  /** Also measure the recorded replies served with the least work any server must do for them (bare-server.ts --least-work). */
  leastWork: boolean;
  build: boolean;
  responseCache: boolean;
  cpuProf: boolean;
  /** Measure the scenarios against one another on threatgate alone (side-by-side.ts). */
  sideBySide: boolean;
  reimport: boolean;
  outDir: string;
}

export const log = (line: string) => process.stderr.write(`${line}\n`);
export const num = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => n.toFixed(2);

export function sizeLabel(size: number): string {
  if (size % 1_000_000 === 0) return `${size / 1_000_000}m`;
  if (size % 1000 === 0) return `${size / 1000}k`;
  return String(size);
}
