// A strict reader of the Prometheus text exposition format (version 0.0.4), for the metrics tests:
// every line must be a HELP, a TYPE or a sample of a declared family, or the parse fails.
// https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for a histogram `x`). */
  name: string;
  /** The family it belongs to, as declared by its TYPE line. */
  family: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name to its type (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  help: Map<string, string>;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<string, readonly string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/**
 * A value as Prometheus reads it (Go's strconv.ParseFloat): a decimal float, or NaN and [+-]Inf in
 * any case. prom-client writes `Nan`, which Prometheus takes as NaN.
 */
function parseValue(text: string, line: string): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`not a sample value: "${text}" in: ${line}`);
  return Number(text);
}

/** Reads `{a="x",b="y"}` starting at `start` (the brace); returns the labels and the index after `}`. */
function parseLabels(line: string, start: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = start + 1;
  while (true) {
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    if (eq === -1) throw new Error(`a label without "=": ${line}`);
    const name = line.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`not a label name: "${name}" in: ${line}`);
    if (Object.hasOwn(labels, name)) throw new Error(`label "${name}" twice in: ${line}`);
    if (line[eq + 1] !== '"') throw new Error(`label "${name}" has no quoted value: ${line}`);
    let value = '';
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j++) {
      if (line[j] !== '\\') {
        value += line[j];
        continue;
      }
      const escaped = line[++j];
      if (escaped === 'n') value += '\n';
      else if (escaped === '\\' || escaped === '"') value += escaped;
      else throw new Error(`bad escape "\\${escaped}" in: ${line}`);
    }
    if (j >= line.length) throw new Error(`unterminated label value in: ${line}`);
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i++;
    else if (line[i] !== '}') throw new Error(`expected "," or "}" after label "${name}" in: ${line}`);
  }
}

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  const familyOf = (name: string): string | undefined => {
    for (const [family, type] of types) for (const suffix of SUFFIXES[type]!) if (name === family + suffix) return family;
    return undefined;
  };
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!match) continue; // a plain comment
      const [, keyword, name = '', rest = ''] = match;
      if (!NAME.test(name)) throw new Error(`not a metric name: "${name}" in: ${line}`);
      if (keyword === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`unknown type "${rest}" in: ${line}`);
        if (types.has(name)) throw new Error(`TYPE of ${name} given twice`);
        if (samples.some((s) => s.family === name || s.name === name)) throw new Error(`TYPE of ${name} after its samples`);
        types.set(name, rest);
      } else {
        help.set(name, rest);
      }
      continue;
    }
    const brace = line.indexOf('{');
    const space = line.indexOf(' ');
    const nameEnd = brace !== -1 && (space === -1 || brace < space) ? brace : space;
    if (nameEnd <= 0) throw new Error(`not a sample line: ${line}`);
    const name = line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new Error(`not a metric name: "${name}" in: ${line}`);
    let labels: Record<string, string> = {};
    let rest = line.slice(nameEnd);
    if (line[nameEnd] === '{') {
      const parsed = parseLabels(line, nameEnd);
      labels = parsed.labels;
      rest = line.slice(parsed.end);
    }
    const fields = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || fields.length < 1 || fields.length > 2) throw new Error(`expected a value (and a timestamp) in: ${line}`);
    const family = familyOf(name);
    if (family === undefined) throw new Error(`sample of an undeclared family: ${line}`);
    samples.push({ name, family, labels, value: parseValue(fields[0]!, line) });
  }
  return { types, help, samples };
}

/** The samples named `name` whose labels include `labels`. */
export function samplesOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none does). */
export function sampleValue(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return samplesOf(exposition, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/** Every label value of every sample. */
export function labelValues(exposition: Exposition): string[] {
  return exposition.samples.flatMap((s) => Object.values(s.labels));
}
