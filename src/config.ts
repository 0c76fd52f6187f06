// Configuration: config/default.json, deep-merged with an optional JSON file, validated once and frozen.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from './logger.js';

const DEFAULT_CONFIG_PATH = fileURLToPath(new URL('../config/default.json', import.meta.url));

const positiveInt = z.number().int().positive();

const planSchema = z.strictObject({
  perSecond: positiveInt,
  perDay: positiveInt,
  perMonth: positiveInt,
  pages: positiveInt,
  taxii: z.enum(['none', 'test', 'all']),
});

const uuidV4 = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'must be a lowercase UUIDv4');

const riskName = z.enum(['unknown', 'none', 'low', 'medium', 'high', 'critical', 'retired']);

/** A saved view: which objects a TAXII collection holds (all filters are ANDed). */
const collectionFilterSchema = z.strictObject({
  /** The first N indicators by iid, with their threats, identities and relationships. */
  sample: positiveInt.optional(),
  fid: positiveInt.optional(),
  tid: positiveInt.optional(),
  minRisk: riskName.optional(),
  types: z.array(z.string().min(1)).min(1).optional(),
});

const collectionSchema = z.strictObject({
  id: uuidV4,
  title: z.string().min(1),
  description: z.string().optional(),
  alias: z.string().regex(/^[a-z0-9-]+$/).optional(),
  /** Readable by every valid key, whatever its plan's `taxii` (the free test collection). */
  free: z.boolean().default(false),
  filter: collectionFilterSchema,
});

/** Runs kept per feed when the config says nothing (docs/interface.md section 12, `health.keepRuns`). */
export const DEFAULT_KEEP_RUNS = 1000;

const configSchema = z.strictObject({
  linksPageSize: positiveInt.max(10000),
  trustProxy: z.union([z.boolean(), z.number().int().nonnegative(), z.string()]),
  cache: z.strictObject({
    maxEntries: z.number().int().nonnegative(),
    maxMegabytes: z.number().nonnegative(),
    versionCheckMs: z.number().int().nonnegative(),
  }),
  redis: z.strictObject({ onError: z.enum(['open', 'closed']) }),
  taxii: z.strictObject({
    defaultLimit: positiveInt,
    maxLimit: positiveInt,
    maxContentLength: positiveInt,
    title: z.string().min(1),
    description: z.string(),
    contact: z.string(),
    apiRoot: z.strictObject({ title: z.string().min(1), description: z.string() }),
    /** Empty envelopes carry `"objects": []` (off by default, as TAXII 2.1 leaves the property out; for Elastic's TAXII input). */
    emptyObjectsList: z.boolean().default(false),
  }),
  plans: z
    .record(z.string().regex(/^[a-z][a-z0-9_-]*$/), planSchema)
    .refine((plans) => 'anonymous' in plans, 'must define the "anonymous" plan'),
  /** docs/interface.md section 3: when threats retire and indicators age out, in days (fractions allowed). */
  lifecycle: z.strictObject({
    threatRetireDays: z.number().positive().max(36_500).default(90),
    /** One number for every type, or days by indicator type with a `default` for the others. */
    indicatorRetireDays: z
      .union([z.number().positive().max(36_500), z.record(z.string().min(1), z.number().positive().max(36_500)).refine((o) => 'default' in o, 'needs a "default"')])
      .default(30),
  }),
  /** Values a source pull never stores (docs/interface.md section 10, "Pulls"); absent: the defaults of sources/allowlist.ts. */
  allowlist: z.array(z.string().min(1)).optional(),
  /** `serve` pulls due source feeds in the background (docs/interface.md section 10, "Background pulls"); `serve --no-pull` turns it off too. */
  pull: z.strictObject({
    enabled: z.boolean(),
    /** How often `serve` asks the store which feeds are due, in seconds. */
    checkSeconds: z.number().min(1).max(3600).default(15),
    /** Pulls `serve` runs at once: one slow feed must not hold up the others or the lifecycle. */
    concurrency: z.number().int().min(1).max(16).default(2),
  }),
  /** Where pulls may connect (docs/security.md, "Where a pull may connect"). */
  sources: z
    .strictObject({
      /** Every source may reach loopback and private addresses (RFC 1918, 100.64.0.0/10, fc00::/7); off, only those that say so. */
      allowPrivateNetworks: z.boolean().default(false),
    })
    .default({ allowPrivateNetworks: false }),
  /** The HTTP server's limits on connections and slow clients (docs/deployment.md, "Connections and slow clients"). */
  server: z
    .strictObject({
      /** Open connections a process (each worker) accepts; more are closed at once. */
      maxConnections: z.number().int().min(1).max(1_000_000).default(10_000),
      /**
       * Of those, open connections from one client address (IPv6 per /56); a proxy that `trustProxy`
       * trusts is held to maxConnections alone. Absent: max(16, maxConnections / 20) (connectionsPerAddress).
       */
      maxConnectionsPerAddress: z.number().int().min(1).max(1_000_000).optional(),
      /** A client has this long to send a request's headers (a few seconds: docs/deployment.md). */
      headersTimeoutSeconds: z.number().min(1).max(600).default(5),
      /** A client has this long to send a whole request. */
      requestTimeoutSeconds: z.number().min(1).max(3600).default(30),
    })
    .default({ maxConnections: 10_000, headersTimeoutSeconds: 5, requestTimeoutSeconds: 30 }),
  /** Failed authentications (unknown, malformed or revoked keys) a client address may make per minute before 429 (docs/interface.md section 7.3). */
  auth: z.strictObject({ failuresPerMinute: z.number().int().min(1).max(1_000_000).default(60) }).default({ failuresPerMinute: 60 }),
  /** Feed health (docs/interface.md section 12): the runs kept per feed, and how long an unchanged upstream may stay so before it is `quiet-upstream`. */
  health: z
    .strictObject({
      keepRuns: z.number().int().min(1).max(1_000_000).default(DEFAULT_KEEP_RUNS),
      quietDays: z.number().positive().max(36_500).default(14),
    })
    .default({ keepRuns: DEFAULT_KEEP_RUNS, quietDays: 14 }),
  /** The operator console (docs/interface.md section 14) at /console/; false: no such route at all. Its sessions last `sessionHours`. */
  console: z
    .strictObject({
      enabled: z.boolean().default(true),
      sessionHours: z.number().positive().max(24 * 366).default(12),
    })
    .default({ enabled: true, sessionHours: 12 }),
  /**
   * Requests whose answer is already known (a cached lookup or TAXII page, a TAXII resource from the
   * config, an export poll naming the current list) are answered before Express by the same checks
   * and handlers (http/fast-path.ts; docs/architecture.md, "A TAXII page, out"); false: every
   * request goes through Express.
   */
  fastPath: z.boolean().default(true),
  /** Explore and search (docs/explore.md): a query still running after `maxMillis` stops with 400 "narrow the query". */
  explore: z.strictObject({ maxMillis: z.number().int().min(100).max(600_000).default(3000) }).default({ maxMillis: 3000 }),
  /** The STIX export (docs/stix-mapping.md): `sightings`, a sighting object for each sighted indicator in the collections that hold it. */
  stix: z.strictObject({ sightings: z.boolean().default(true) }).default({ sightings: true }),
  /** GET /metrics in the Prometheus text format (docs/deployment.md, "Metrics"); false: no route, nothing counted. */
  metrics: z.strictObject({ enabled: z.boolean() }).default({ enabled: true }),
  collections: z
    .array(collectionSchema)
    .min(1)
    .refine((list) => new Set(list.map((c) => c.id)).size === list.length, 'collection ids must be unique'),
});

export type Plan = z.infer<typeof planSchema>;
export type CollectionConfig = z.infer<typeof collectionSchema>;
export type CollectionFilter = z.infer<typeof collectionFilterSchema>;
export type Config = Readonly<z.infer<typeof configSchema>>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge key by key; arrays and scalars in the override replace the default. */
export function deepMerge(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) merged[key] = deepMerge(base[key], value);
  return merged;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function readJson(path: string, setting: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${setting}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${setting}: ${path} is not valid JSON (${(error as Error).message})`);
  }
}

/** Validates a raw (already merged) config object; errors name the offending key. */
export function parseConfig(raw: unknown, source = 'config'): Config {
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(root)';
    throw new ConfigError(`${source}: ${where} ${issue?.message ?? 'is invalid'}`);
  }
  const config = result.data;
  if (config.taxii.defaultLimit > config.taxii.maxLimit) {
    throw new ConfigError(`${source}: taxii.defaultLimit must not exceed taxii.maxLimit`);
  }
  // The headers are part of the request: node refuses a server whose headersTimeout is the longer.
  if (config.server.headersTimeoutSeconds > config.server.requestTimeoutSeconds) {
    throw new ConfigError(`${source}: server.headersTimeoutSeconds must not exceed server.requestTimeoutSeconds`);
  }
  return deepFreeze(config);
}

/**
 * Loads config/default.json merged with `overrides` (a file, from --config or THREATGATE_CONFIG)
 * and with in-code overrides (tests, benchmarks).
 */
export function loadConfig(options: { file?: string | undefined; setting?: string; overrides?: unknown } = {}): Config {
  let raw = readJson(DEFAULT_CONFIG_PATH, 'config/default.json');
  let source = 'config/default.json';
  if (options.file) {
    const setting = options.setting ?? '--config';
    raw = deepMerge(raw, readJson(options.file, setting));
    source = `${setting} ${options.file}`;
  }
  if (options.overrides !== undefined) raw = deepMerge(raw, options.overrides);
  return parseConfig(raw, source);
}

/** Settings of one command run, resolved as flag > environment variable > default. */
export interface RuntimeSettings {
  db: string;
  /** Which setting named the database, for error messages. */
  dbSetting: string;
  port: number;
  host: string;
  redisUrl: string | undefined;
  logLevel: LogLevel;
  configFile: string | undefined;
  configSetting: string;
}

export function resolveRuntimeSettings(
  flags: { db?: string | undefined; port?: string | undefined; host?: string | undefined; config?: string | undefined },
  env: Record<string, string | undefined>,
  defaultDb: string,
): RuntimeSettings {
  const pick = (flag: string | undefined, flagName: string, envName: string, fallback?: string) => {
    if (flag !== undefined) return { value: flag, setting: flagName };
    const fromEnv = env[envName];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, setting: envName };
    return { value: fallback, setting: flagName };
  };
  const db = pick(flags.db, '--db', 'DATABASE_URL', defaultDb);
  const port = pick(flags.port, '--port', 'PORT', '8080');
  const host = pick(flags.host, '--host', 'HOST', '127.0.0.1');
  const config = pick(flags.config, '--config', 'THREATGATE_CONFIG');
  const logLevel = env.LOG_LEVEL && env.LOG_LEVEL !== '' ? env.LOG_LEVEL : 'info';

  const portNumber = Number(port.value);
  if (!/^\d{1,5}$/.test(port.value ?? '') || portNumber > 65535) {
    throw new ConfigError(`${port.setting}: "${port.value}" is not a port number (0-65535)`);
  }
  if (!host.value || /\s/.test(host.value)) throw new ConfigError(`${host.setting}: "${host.value}" is not a host name or address`);
  if (!isLogLevel(logLevel)) throw new ConfigError(`LOG_LEVEL: "${logLevel}" must be one of ${LOG_LEVELS.join(', ')}`);
  if (!db.value) throw new ConfigError(`${db.setting}: the database path or URL is empty`);
  const redisUrl = env.REDIS_URL && env.REDIS_URL !== '' ? env.REDIS_URL : undefined;
  // The value is not echoed: a URL may carry a password.
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError(`REDIS_URL: must start with redis:// or rediss:// (it starts with "${redisUrl.split(':')[0]!.slice(0, 20)}:")`);
  }
  return {
    db: db.value,
    dbSetting: db.setting,
    port: portNumber,
    host: host.value,
    redisUrl,
    logLevel,
    configFile: config.value,
    configSetting: config.setting,
  };
}
