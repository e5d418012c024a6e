import {
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpProtocolEras,
  type McpProtocolVersion,
  type McpWireProfile,
} from '@app/mcp';

/** The reference gateway's settings, read once from the environment and the command line. */
export interface GatewayConfig {
  /** Where HTTP listens (docs/decisions/0012-gateway-listening-address.md). */
  url: URL;
  /** The reported protocol version override (`MCP_PROTOCOL_VERSION`). */
  protocolVersion?: McpProtocolVersion;
  /** `MCP_STATELESS=1` turns session management off. */
  stateless: boolean;
  /** `MCP_WIRE_PROFILE`: `gateway` (default) or `strict`. */
  wireProfile: McpWireProfile;
  /** `--stdio`: serve stdin/stdout only, with no HTTP listener. */
  stdio: boolean;
  /** `MCP_HTTP_PLATFORM`: Nest's HTTP platform, `express` (default) or `fastify`. */
  httpPlatform: GatewayHttpPlatform;
  /** `MCP_SESSION_IDLE_TIMEOUT_MS` (default 30 minutes). */
  sessionIdleTimeoutMs?: number;
  /** `MCP_SESSION_CLEANUP_INTERVAL_MS` (default 60 seconds). */
  sessionCleanupIntervalMs?: number;
  /** `MCP_PROTOCOL_ERAS`: `dual` (default), `legacy` or `modern` (docs/protocol-eras.md). */
  protocolEras: McpProtocolEras;
  /**
   * `MCP_REQUEST_STATE_KEYS`: comma-separated keys (16 bytes or more each) that sign MRTR
   * `requestState`, first one signing. Unset: the library makes a random one and warns.
   */
  requestStateKeys?: string[];
  /** Resource-server mode, on when `MCP_AUTH_ISSUER` is set. */
  auth?: GatewayAuthConfig;
  /**
   * `REDIS_URL`: when set, sessions, subscriptions, delivery and the demo's notes live in Redis,
   * so several instances behind a load balancer behave as one.
   */
  redisUrl?: string;
  /**
   * `REDIS_CLUSTER_NODES`: comma-separated `host:port` seed nodes of a Redis Cluster. When set, the
   * gateway runs on that cluster (REDIS_URL, when set too, gives the credentials and TLS of every
   * node: `rediss://user:password@any-host`).
   */
  redisClusterNodes?: string[];
  /** `MCP_INSTANCE_ID`: this instance's id on Redis (default: host name, pid and a random part). */
  instanceId?: string;
  /** `MCP_REDIS_KEY_PREFIX` (default `mcp:`): deployments sharing one Redis use different ones. */
  redisKeyPrefix: string;
  /**
   * `MCP_REDIS_HEARTBEAT_MS` (default 5 seconds): how often the instance proves it lives on Redis.
   * Its liveness lapses after three beats missed, and the tasks of an instance that died fail then.
   */
  redisHeartbeatMs?: number;
  /** `NOTES_EXPORT_STEP_MS` (default 1 second): how long `notes.export` works on each note. */
  notesExportStepMs: number;
  /**
   * `MCP_SKILLS_WATCH` (default `1`): reload the gateway's skills when their folder changes
   * (`skills.watch`); `0` reads them once, at startup.
   */
  skillsWatch: boolean;
  /**
   * `MCP_PROMETHEUS=1`: metrics in the Prometheus text format at `GET /metrics` on the gateway's
   * listener; `MCP_PROMETHEUS_PORT` serves them on a port of their own instead (docs/telemetry.md).
   */
  prometheus?: GatewayPrometheusConfig;
  /** How the library's telemetry treats what clients send (docs/telemetry.md). */
  telemetry: GatewayTelemetryConfig;
}

/** The library's `telemetry` options the gateway takes from the environment. */
export interface GatewayTelemetryConfig {
  /** `MCP_OTEL_CLIENT_TRACE_CONTEXT`: `parent` (the library's default), `link` or `ignore`. */
  clientTraceContext?: 'parent' | 'link' | 'ignore';
  /** `MCP_OTEL_SESSION_IDS`: `digest` (the library's default), `none` or `clear`. */
  sessionIds?: 'digest' | 'none' | 'clear';
}

/** Where the gateway serves its metrics for Prometheus to scrape. */
export interface GatewayPrometheusConfig {
  /** `MCP_PROMETHEUS_PORT`: a listener of its own on the gateway's host (0: any free port). Unset: the gateway's listener. */
  port?: number;
  /**
   * `MCP_PROMETHEUS_TOKEN`: the scrape must send `Authorization: Bearer <token>`. Required when
   * authorization is on (`MCP_AUTH_ISSUER`): the access tokens of `/mcp` are for MCP clients, and
   * `/metrics` is no less worth protecting than what they reach.
   */
  token?: string;
}

/** Who issues the gateway's access tokens, and for what audience. */
export interface GatewayAuthConfig {
  /** `MCP_AUTH_ISSUER`: the authorization server's issuer identifier. */
  issuer: string;
  /** `MCP_AUTH_AUDIENCE`: the canonical resource URI tokens must name (default: the endpoint URL). */
  audience: string;
  /** `MCP_AUTH_JWKS_URI`: where the signing keys are (default: discovered from the issuer). */
  jwksUri?: string;
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

/** The Nest HTTP platforms the gateway runs on. */
export type GatewayHttpPlatform = 'express' | 'fastify';

const DEFAULT_PORT = 5000;
/** Long enough per note that a person watching the task sees it work. */
const DEFAULT_NOTES_EXPORT_STEP_MS = 1_000;
const DEFAULT_URLS = `http://127.0.0.1:${DEFAULT_PORT}`;

/** True when the authority of an absolute URL writes a port (`http://host:80/` does; `http://host/` does not). */
const hasExplicitPort = (url: string): boolean =>
  /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):\d+(?:[/?#]|$)/i.test(url);

/** Reads `--urls <list>` or `--urls=<list>` from argv. */
function urlsFromArgv(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--urls') return argv[i + 1];
    if (argv[i].startsWith('--urls=')) return argv[i].slice('--urls='.length);
  }
  return undefined;
}

/**
 * Builds the configuration; a bad value stops startup with a message saying which and why.
 * `URLS` may list several addresses separated by `;` (as ASP.NET does); the first one is used.
 */
export function loadGatewayConfig(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv,
): GatewayConfig {
  const urls = urlsFromArgv(argv) ?? env.URLS ?? DEFAULT_URLS;
  const first =
    urls
      .split(';')
      .map((entry) => entry.trim())
      .find(Boolean) ?? DEFAULT_URLS;
  let url: URL;
  try {
    url = new URL(first);
  } catch {
    throw new Error(`URLS is '${urls}': '${first}' is not a URL such as http://127.0.0.1:5000`);
  }
  if (url.protocol !== 'http:') throw new Error(`URLS is '${urls}': only http:// addresses are supported`);
  // `http://127.0.0.1` names no port; the WHATWG parser would leave it empty and the bind would
  // take port 80. The gateway's port is 5000 unless one is written out (`:80` included).
  if (!hasExplicitPort(first)) url.port = String(DEFAULT_PORT);

  const version = env.MCP_PROTOCOL_VERSION?.trim() || undefined;
  if (version !== undefined && !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    throw new Error(
      `MCP_PROTOCOL_VERSION is '${version}', which is not a supported protocol version (${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  const wire = env.MCP_WIRE_PROFILE?.trim() || 'gateway';
  if (wire !== 'gateway' && wire !== 'strict') {
    throw new Error(`MCP_WIRE_PROFILE is '${wire}': use 'gateway' (the default) or 'strict'`);
  }
  const eras = env.MCP_PROTOCOL_ERAS?.trim() || 'dual';
  if (eras !== 'dual' && eras !== 'legacy' && eras !== 'modern') {
    throw new Error(`MCP_PROTOCOL_ERAS is '${eras}': use 'dual' (the default), 'legacy' or 'modern'`);
  }
  const keys = env.MCP_REQUEST_STATE_KEYS?.split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (keys?.some((key) => Buffer.byteLength(key) < 16)) {
    throw new Error('MCP_REQUEST_STATE_KEYS holds a key shorter than 16 bytes: use long random keys');
  }
  return {
    url,
    protocolVersion: version as McpProtocolVersion | undefined,
    protocolEras: eras,
    requestStateKeys: keys?.length ? keys : undefined,
    stateless: env.MCP_STATELESS === '1' || env.MCP_STATELESS === 'true',
    wireProfile: wire,
    stdio: argv.includes('--stdio'),
    httpPlatform: oneOf(env, 'MCP_HTTP_PLATFORM', ['express', 'fastify'] as const) ?? 'express',
    sessionIdleTimeoutMs: milliseconds(env, 'MCP_SESSION_IDLE_TIMEOUT_MS'),
    sessionCleanupIntervalMs: milliseconds(env, 'MCP_SESSION_CLEANUP_INTERVAL_MS'),
    auth: authConfig(env, url),
    ...redisSettings(env),
    notesExportStepMs: nonNegativeMilliseconds(env, 'NOTES_EXPORT_STEP_MS') ?? DEFAULT_NOTES_EXPORT_STEP_MS,
    skillsWatch: oneOf(env, 'MCP_SKILLS_WATCH', ['0', '1'] as const) !== '0',
    telemetry: {
      clientTraceContext: oneOf(env, 'MCP_OTEL_CLIENT_TRACE_CONTEXT', ['parent', 'link', 'ignore'] as const),
      sessionIds: oneOf(env, 'MCP_OTEL_SESSION_IDS', ['digest', 'none', 'clear'] as const),
    },
    prometheus: prometheusConfig(env, url, argv.includes('--stdio'), env.MCP_AUTH_ISSUER?.trim() ? true : false),
  };
}

/** The shortest `MCP_PROMETHEUS_TOKEN`: 16 bytes, as for the request-state keys. */
const MIN_SCRAPE_TOKEN_BYTES = 16;

/**
 * `MCP_PROMETHEUS`, `MCP_PROMETHEUS_PORT` and `MCP_PROMETHEUS_TOKEN`; a port alone turns it on
 * too. With authorization on, the scrape needs its token: `/metrics` is not left open beside a
 * `/mcp` that needs one.
 */
function prometheusConfig(
  env: NodeJS.ProcessEnv,
  url: URL,
  stdio: boolean,
  auth: boolean,
): GatewayPrometheusConfig | undefined {
  const token = env.MCP_PROMETHEUS_TOKEN?.trim() || undefined;
  const config = prometheusPlace(env, url, stdio);
  if (token !== undefined) {
    if (!config) throw new Error('MCP_PROMETHEUS_TOKEN is set but Prometheus is off: set MCP_PROMETHEUS=1 too');
    if (Buffer.byteLength(token) < MIN_SCRAPE_TOKEN_BYTES) {
      throw new Error(`MCP_PROMETHEUS_TOKEN is shorter than ${MIN_SCRAPE_TOKEN_BYTES} bytes: use a long random secret`);
    }
    return { ...config, token };
  }
  if (config && auth) {
    throw new Error(
      'MCP_PROMETHEUS is set with authorization on (MCP_AUTH_ISSUER): set MCP_PROMETHEUS_TOKEN, the secret Prometheus must send as a bearer token, so /metrics is not open to anyone',
    );
  }
  return config;
}

/** Where the scrape is served: `MCP_PROMETHEUS` and `MCP_PROMETHEUS_PORT`. */
function prometheusPlace(env: NodeJS.ProcessEnv, url: URL, stdio: boolean): GatewayPrometheusConfig | undefined {
  const flag = env.MCP_PROMETHEUS?.trim() || undefined;
  if (flag !== undefined && !['1', 'true', '0', 'false'].includes(flag)) {
    throw new Error(`MCP_PROMETHEUS is '${flag}': use 1 to serve metrics at /metrics, or leave it unset`);
  }
  const rawPort = env.MCP_PROMETHEUS_PORT?.trim() || undefined;
  const port = rawPort === undefined ? undefined : Number(rawPort);
  if (rawPort !== undefined && !(Number.isInteger(port) && port! >= 0 && port! <= 65535)) {
    throw new Error(`MCP_PROMETHEUS_PORT is '${rawPort}': use a TCP port number (0 for any free port)`);
  }
  if (port === undefined && (flag === undefined || flag === '0' || flag === 'false')) return undefined;
  if ((flag === '0' || flag === 'false') && port !== undefined) {
    throw new Error(`MCP_PROMETHEUS is '${flag}' but MCP_PROMETHEUS_PORT is set: unset one of them`);
  }
  if (stdio) {
    throw new Error(
      'MCP_PROMETHEUS is set in --stdio mode, which opens no HTTP listener: export metrics with OTEL_EXPORTER_OTLP_ENDPOINT instead',
    );
  }
  if (port !== undefined && port !== 0 && port === portOf(url)) {
    throw new Error(
      `MCP_PROMETHEUS_PORT is ${port}, the gateway's own port: unset it to serve /metrics on the gateway's listener`,
    );
  }
  return port === undefined ? {} : { port };
}

/** `MCP_AUTH_*`: resource-server mode when an issuer is named. */
function authConfig(env: NodeJS.ProcessEnv, url: URL): GatewayAuthConfig | undefined {
  const issuer = env.MCP_AUTH_ISSUER?.trim();
  if (!issuer) return undefined;
  const audience = env.MCP_AUTH_AUDIENCE?.trim() || `${url.origin}/mcp`;
  const jwksUri = env.MCP_AUTH_JWKS_URI?.trim() || undefined;
  for (const [name, value] of [
    ['MCP_AUTH_ISSUER', issuer],
    ['MCP_AUTH_AUDIENCE', audience],
    ['MCP_AUTH_JWKS_URI', jwksUri],
  ] as const) {
    if (value !== undefined && !URL.canParse(value)) throw new Error(`${name} is '${value}': use an absolute URL`);
  }
  return { issuer, audience, ...(jwksUri ? { jwksUri } : {}) };
}

function redisSettings(
  env: NodeJS.ProcessEnv,
): Pick<GatewayConfig, 'redisUrl' | 'redisClusterNodes' | 'instanceId' | 'redisKeyPrefix' | 'redisHeartbeatMs'> {
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new Error(`REDIS_URL is '${redisUrl}': use a redis:// or rediss:// URL such as redis://127.0.0.1:6379`);
  }
  const nodes = env.REDIS_CLUSTER_NODES?.trim() || undefined;
  const redisClusterNodes = nodes?.split(',').map((node) => node.trim());
  for (const node of redisClusterNodes ?? []) {
    const port = Number(/:(\d+)$/.exec(node)?.[1]);
    if (!/^[^\s:,]+:\d+$/.test(node) || !(port >= 1 && port <= 65_535)) {
      throw new Error(`REDIS_CLUSTER_NODES holds '${node}': use comma-separated host:port seeds such as 10.0.0.1:6379`);
    }
  }
  const instanceId = env.MCP_INSTANCE_ID?.trim() || undefined;
  if (instanceId !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(instanceId)) {
    throw new Error(`MCP_INSTANCE_ID is '${instanceId}': use 1 to 64 letters, digits, '.', '_' or '-'`);
  }
  return {
    redisUrl,
    redisClusterNodes,
    instanceId,
    redisKeyPrefix: env.MCP_REDIS_KEY_PREFIX?.trim() || 'mcp:',
    redisHeartbeatMs: milliseconds(env, 'MCP_REDIS_HEARTBEAT_MS'),
  };
}

/** A variable that names one of `values`, or is unset. */
function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[]): T | undefined {
  const raw = env[name]?.trim() || undefined;
  if (raw === undefined) return undefined;
  if (!(values as readonly string[]).includes(raw)) {
    throw new Error(`${name} is '${raw}': use ${values.map((value) => `'${value}'`).join(', ')}`);
  }
  return raw as T;
}

function milliseconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${name} is '${raw}': use a positive number of milliseconds`);
  return value;
}

function nonNegativeMilliseconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} is '${raw}': use a number of milliseconds`);
  return value;
}

/** The port to bind: the one `URLS` names (the loader fills in 5000 when it names none; `:80` parses as empty). */
export const portOf = (url: URL): number => (url.port ? Number(url.port) : 80);

/** The host to bind: brackets of IPv6 literals removed. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');
