import { SUPPORTED_PROTOCOL_VERSIONS, type McpProtocolVersion, type McpWireProfile } from '@app/mcp';

/** The reference gateway's settings, read once from the environment and the command line. */
export interface GatewayConfig {
  /** Where HTTP listens (DECISIONS D7). */
  url: URL;
  /** The reported protocol version override (`MCP_PROTOCOL_VERSION`). */
  protocolVersion?: McpProtocolVersion;
  /** `MCP_STATELESS=1` turns session management off. */
  stateless: boolean;
  /** `MCP_WIRE_PROFILE`: `gateway` (default) or `strict`. */
  wireProfile: McpWireProfile;
  /** `--stdio`: serve stdin/stdout only, with no HTTP listener. */
  stdio: boolean;
  /** `MCP_SESSION_IDLE_TIMEOUT_MS` (default 30 minutes). */
  sessionIdleTimeoutMs?: number;
  /** `MCP_SESSION_CLEANUP_INTERVAL_MS` (default 60 seconds). */
  sessionCleanupIntervalMs?: number;
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

const DEFAULT_URLS = 'http://127.0.0.1:5000';

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
  return {
    url,
    protocolVersion: version as McpProtocolVersion | undefined,
    stateless: env.MCP_STATELESS === '1' || env.MCP_STATELESS === 'true',
    wireProfile: wire,
    stdio: argv.includes('--stdio'),
    sessionIdleTimeoutMs: milliseconds(env, 'MCP_SESSION_IDLE_TIMEOUT_MS'),
    sessionCleanupIntervalMs: milliseconds(env, 'MCP_SESSION_CLEANUP_INTERVAL_MS'),
  };
}

function milliseconds(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${name} is '${raw}': use a positive number of milliseconds`);
  return value;
}

/** The port of a URL, with the scheme's default when it names none. */
export const portOf = (url: URL): number => (url.port ? Number(url.port) : 80);

/** The host to bind: brackets of IPv6 literals removed. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');
