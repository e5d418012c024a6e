import type { McpTelemetryOptions } from '../telemetry/mcp-telemetry.options.js';
import type { McpAuthOptions } from './mcp-auth-options.interface.js';
import type { McpBackend } from '../backend/mcp-backend.interface.js';
import type { McpProtocolEras, McpProtocolVersion } from '../mcp.constants.js';
import type { McpCacheHints } from '../model/mcp-cache.interface.js';
import type { McpIcon } from './mcp-icon.interface.js';

/** Identity of the server, sent in the `initialize` result. @publicApi */
export interface McpServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  icons?: McpIcon[];
  websiteUrl?: string;
}

/**
 * Wire profile: the shapes of `resources/subscribe` and `resources/unsubscribe`.
 * - `strict` (default): the MCP schema's: `{}` for both results, and `-32002` "Resource not
 *   found" (with `data.uri`) for subscribing to an unknown resource. Every official client (SDK
 *   v1 `subscribeResource()`, SDK v2, LangChain's MCP adapters) validates these results against
 *   a strict empty schema and throws on any extra key.
 * - `gateway`: the reference gateway's contract (docs/reference-gateway.md): `{ subscribed: true, uri }` and
 *   `{ unsubscribed: true, uri }`, and `-32601` for an unknown resource. The reference gateway
 *   serves these by default; official SDK clients then need
 *   `client.request({ method: 'resources/subscribe', params }, schema)` with a schema of their own.
 * @publicApi
 */
export type McpWireProfile = 'gateway' | 'strict';

/**
 * Options of `McpModule.forRoot()` / `forRootAsync()`: the server's identity and protocol at the
 * top, the rest in groups (`sessions`, `transport`, `limits`, `modern`, `delivery`, `auth`). The
 * extras `http`, `ws`, `sse` and `stdio` (`McpModuleExtras`) choose which endpoints exist and
 * where; `transport` sets how they behave.
 * @publicApi
 */
export interface McpModuleOptions {
  /** Server identity reported by `initialize`. */
  serverInfo: McpServerInfo;
  /** Instructions for the model, sent in the `initialize` result. */
  instructions?: string;
  /**
   * Which protocol eras the endpoints serve (docs/decisions/0003-two-protocol-eras-on-one-endpoint.md), chosen per
   * request:
   * - `'dual'`: the modern era (MCP 2026-07-28: per-request `_meta`, `server/discover`,
   *   `subscriptions/listen`, multi round-trip requests) beside the legacy era of `initialize`
   *   and sessions (2025-11-25, 2025-06-18, 2025-03-26);
   * - `'legacy'`: the legacy era only; a modern request gets HTTP 400 `-32000`, so dual-era
   *   clients fall back to `initialize`;
   * - `'modern'`: the modern era only; `initialize` gets HTTP 400 `-32022` naming the modern versions.
   * @default 'dual'
   */
  protocol?: McpProtocolEras;
  /**
   * The version `initialize` always reports when set, whatever the client asks
   * (docs/decisions/0006-protocol-version-negotiation.md);
   * all supported versions stay accepted in the header. Usually read from `MCP_PROTOCOL_VERSION`.
   * @default undefined (answer the client's version when supported, else 2025-11-25)
   */
  protocolVersion?: McpProtocolVersion;
  /** See `McpWireProfile`. @default 'strict' */
  wireProfile?: McpWireProfile;
  /** Page size of every list method. @default 100 */
  pageSize?: number;
  /**
   * Session management (the legacy era's `initialize` and `MCP-Session-Id`); `false` turns it
   * off, `true` or an object keeps it on. See `McpSessionsOptions`.
   * @default true
   */
  sessions?: boolean | McpSessionsOptions;
  /** How the endpoints treat a request or a connection: origins, hosts, headers, keep-alive. */
  transport?: McpTransportOptions;
  /** Bounds on what one request, connection or caller may take. */
  limits?: McpLimitsOptions;
  /** Settings of the modern era (MCP 2026-07-28): request state, caching hints, listens. */
  modern?: McpModernOptions;
  /** How notifications and answers reach the client's streams. */
  delivery?: McpDeliveryOptions;
  /** Tasks: their lifetimes, polling, hand-off and budgets. */
  tasks?: McpTasksOptions;
  /**
   * Agent Skills published from folders (the skills extension, `io.modelcontextprotocol/skills`,
   * docs/skills.md). Every folder under `directories` that holds a `SKILL.md` is a skill.
   * @default undefined (no skills, the extension is not declared)
   */
  skills?: McpSkillsOptions;
  /**
   * OpenTelemetry traces and metrics in the MCP semantic conventions (docs/telemetry.md). On by
   * default, at no measurable cost without an OpenTelemetry SDK. See `McpTelemetryOptions`.
   */
  telemetry?: McpTelemetryOptions;
  /**
   * Where sessions, subscriptions and delivery state live. The in-memory default needs nothing;
   * a shared backend (`@nest-mcp/redis`) lets several instances behave as one.
   * @default new InMemoryMcpBackend()
   */
  backend?: McpBackend;
  /**
   * Resource-server mode (MCP authorization): every HTTP entry point needs a bearer access token
   * issued for `auth.resource`, sessions belong to the principal that created them, and
   * `@RequireScopes()` is enforced. See `McpAuthOptions`.
   * @default undefined (no authorization: a local server)
   */
  auth?: McpAuthOptions;
}

/**
 * Session management: `sessions` of `McpModule.forRoot()`. Off means stateless: every POST
 * stands alone, no GET stream, and subscriptions answer `-32000`.
 * @publicApi
 */
export interface McpSessionsOptions {
  /** @default true */
  enabled?: boolean;
  /** Idle time after which a session expires, in milliseconds. @default 1_800_000 (30 minutes) */
  idleTimeoutMs?: number;
  /** How often expired sessions are swept. @default 60_000 */
  cleanupIntervalMs?: number;
  /**
   * Most sessions held at once; `initialize` beyond it is refused (HTTP 503 with Retry-After)
   * until sessions end or expire, so abandoned sessions cannot exhaust memory.
   * @default 10_000
   */
  max?: number;
  /**
   * Most sessions one caller holds at once on this instance: the principal in resource-server
   * mode (`auth`), the remote address otherwise. `initialize` beyond it answers 429 with
   * `Retry-After`, so one client cannot take every place of `max`.
   * @default undefined (no limit per caller)
   */
  maxPerCaller?: number;
  /**
   * Most resource URIs one session may be subscribed to (`resources/subscribe`) at once. A
   * subscribe past it answers `-32000` "Too many subscriptions" (with `data.limit`) and stores
   * nothing; unsubscribing makes room. The check and the write are one atomic step in the
   * backend, so concurrent subscribes (on any instance) never pass it. It bounds what a session
   * costs: its subscriptions' memory, the work of its end, and the resync a stream gets when its
   * `Last-Event-ID` cannot be replayed (one `updated` per subscription). The same number as
   * `modern.maxListenUris`, so a session follows as many resources as a listen does.
   * @default 1_000
   */
  maxSubscriptions?: number;
}

/**
 * How the endpoints treat a request or a connection: `transport` of `McpModule.forRoot()` (the
 * extras `http`, `ws`, `sse` and `stdio` choose which endpoints exist and on which path).
 * @publicApi
 */
export interface McpTransportOptions {
  /**
   * Origins allowed to call the HTTP endpoints (`'*'` for any). The literal `null` origin is
   * always refused. Requests without an `Origin` header are allowed.
   * @default localhost origins only
   */
  allowedOrigins?: string[];
  /**
   * Values allowed in the `Host` header (`name` or `name:port`; `'*'` for any): the DNS
   * rebinding defence.
   * @default localhost, 127.0.0.1 and [::1] on any port
   */
  allowedHosts?: string[];
  /**
   * Validate the `MCP-Protocol-Version` header (400 when it names an unsupported version).
   * @default true
   */
  validateProtocolVersionHeader?: boolean;
  /**
   * Interval of liveness traffic on long-lived connections: SSE keep-alive comments and
   * WebSocket pings (a peer that misses a pong is dropped).
   * @default 15_000
   */
  keepAliveMs?: number;
}

/**
 * Bounds on what one request, connection or caller may take: `limits` of `McpModule.forRoot()`.
 * @publicApi
 */
export interface McpLimitsOptions {
  /**
   * Largest accepted message, in bytes: a request body on Streamable HTTP and legacy SSE (413
   * past it), and, unless `ws.maxPayloadBytes` or `stdio.maxLineBytes` say otherwise, a
   * WebSocket frame and a stdio line. A JSON-RPC batch is one message.
   * @default 4 MiB
   */
  maxBodyBytes?: number;
  /**
   * Requests one WebSocket, stdio or legacy SSE connection may have running at once; past it a
   * request is refused at once with `-32004` (a client that floods cannot grow the server).
   * @default 100
   */
  maxInFlightRequests?: number;
  /**
   * Deepest nesting of objects and arrays accepted in tool arguments, the arguments object being
   * level 1. Deeper arguments are refused as invalid (an `isError` result, `-32602` before
   * 2025-11-25) before any transform or validation runs: converters and validators recurse, and
   * a value nested thousands of levels deep would overflow their stack. The same bound applies
   * to the other client input the library walks or serializes: the params of a multi
   * round-trip request (one level more: the params object holds the arguments), its
   * `inputResponses`, `initialize`'s `capabilities` and `clientInfo` (`-32602`), and a client's
   * answer forwarded to another instance (dropped).
   * @default 64
   */
  maxArgumentDepth?: number;
  /**
   * Most event streams one caller holds open at once on this instance: standalone GET streams
   * (the GETs of one session share a place) and legacy HTTP+SSE streams. The caller is the
   * principal in resource-server mode (`auth`), the remote address otherwise (see
   * `modern.maxListensPerCaller`). Past it the GET answers 429 (`-32004`) with `Retry-After`.
   * @default a tenth of `sessions.max` (1_000 with the defaults)
   */
  maxStreamsPerCaller?: number;
  /**
   * At most `limit` tool calls per `windowMs` per caller: the principal in resource-server mode
   * (`auth`), else the session (the remote address without one). Past it `tools/call` answers
   * `-32004` with `data.retryAfterMs`, over HTTP as a 429 with `Retry-After`.
   * @default undefined (no limit)
   */
  toolRateLimit?: { limit: number; windowMs: number };
  /** How long `ctx.elicit()`, `ctx.sample()` and `ctx.listRoots()` wait for the client. @default 60_000 */
  clientRequestTimeoutMs?: number;
}

/**
 * Settings of the modern era (MCP 2026-07-28): `modern` of `McpModule.forRoot()`.
 * @publicApi
 */
export interface McpModernOptions {
  /**
   * Keys that sign MRTR `requestState` (HMAC-SHA256): the first signs, every one verifies, so a
   * key can be rotated in. Every instance behind one endpoint needs the same list.
   * @default one random key per process (with a startup warning when the backend is shared)
   */
  requestStateKeys?: (string | Buffer)[];
  /**
   * How long the `requestState` of one round may be presented back (each round of a multi
   * round-trip request gets a new state with a new expiry). Long enough for a person to answer
   * an elicitation form; a shorter life narrows the window in which a state that leaked can be
   * presented before its owner's retry uses it (every state is accepted once), and how long the
   * backend remembers its nonce.
   * @default 300_000 (5 minutes)
   */
  requestStateTtlMs?: number;
  /**
   * Caching hints of modern results (`server/discover`, the lists, `resources/read`), which
   * decorators may override per tool, prompt, resource or template.
   * @default { ttlMs: 0, scope: 'public' }
   */
  cacheHints?: McpCacheHints;
  /** Most `subscriptions/listen` streams one instance holds at once. @default 10_000 */
  maxListens?: number;
  /**
   * Most `subscriptions/listen` streams one caller holds at once on this instance: the principal
   * in resource-server mode (`auth`), the remote address otherwise (`X-Forwarded-For` is not
   * trusted: behind a proxy without `auth`, every client shares the proxy's address, so raise
   * it there). Past it a listen answers 429 (`-32004`) with `Retry-After`, so one caller cannot
   * take every place of `maxListens`.
   * @default a tenth of `maxListens` (1_000 with the defaults)
   */
  maxListensPerCaller?: number;
  /** Most resource URIs one listen may ask for. @default 1_000 */
  maxListenUris?: number;
}

/**
 * How notifications and answers reach the client's streams: `delivery` of `McpModule.forRoot()`.
 * @publicApi
 */
export interface McpDeliveryOptions {
  /**
   * Messages kept per session for replay on `Last-Event-ID`; older ones are dropped (a client
   * resuming from a dropped id gets a resync).
   * @default 256
   */
  replayBufferSize?: number;
  /**
   * Largest write backlog of one stream (SSE, WebSocket), in bytes, not counting the one message
   * that took the backlog over it: a single message larger than this never cuts off a client that
   * reads. A stream whose client stops reading is closed past it (SSE with a `retry:` hint, and
   * it resumes from the replay buffer; WebSocket with 1013); stdio stops reading stdin.
   * @default 1 MiB
   */
  maxStreamBufferBytes?: number;
  /** Window in which list-changed notifications are coalesced into one. @default 50 */
  listChangedDebounceMs?: number;
}

/** Tasks: long-running tool calls the client polls (tools with `taskSupport`, docs/tasks.md). @publicApi */
export interface McpTasksOptions {
  /**
   * How long a task's record and result stay readable after it was created, when the client asks for no time to live (the tasks
   * extension never does). Its handler is stopped when it lapses, and the task is gone on every
   * instance. At most `maxTtlMs`.
   * @default 3_600_000 (1 hour)
   */
  ttlMs?: number;
  /**
   * Longest time to live a task gets, whatever the client asks (2025-11-25 `params.task.ttl`);
   * at most 2_147_483_647 (about 24.8 days).
   * @default 86_400_000 (24 hours)
   */
  maxTtlMs?: number;
  /** How often tasks suggest their clients poll them (`pollInterval`, `pollIntervalMs`). @default 1_000 */
  pollIntervalMs?: number;
  /**
   * Tasks extension (2026-07-28): how long a call of a tool that supports tasks runs inside its
   * request before it becomes a task. A call that ends sooner answers with its result, one that
   * asks the client for input sooner does so with an `input_required` round; one still running
   * is answered with a `CreateTaskResult` and goes on as a task. Zero or more.
   * @default 100
   */
  handoffMs?: number;
  /**
   * Most tasks one caller has stored at once, running or ended, on every instance together: the
   * principal in resource-server mode (`auth`), the remote address otherwise (see
   * `modern.maxListensPerCaller`). A new task past it removes the caller's oldest ended task;
   * with none ended, the call answers 429 (`-32004`). Below `maxStored`.
   * @default 100
   */
  maxPerCaller?: number;
  /**
   * Most bytes of JSON (task records and results) one caller has stored at once, on every
   * instance together. What passes it removes the caller's oldest ended tasks; a result that
   * still does not fit fails its task (`failed`, saying the result was not kept). Below
   * `maxStoredBytes`.
   * @default 16_777_216 (16 MiB)
   */
  maxBytesPerCaller?: number;
  /**
   * Most tasks stored at once, every caller together; past it a task-creating call answers 503
   * (`-32000`) with `Retry-After` until some expire.
   * @default 10_000
   */
  maxStored?: number;
  /**
   * Most bytes of JSON stored for tasks at once, every caller together; past it a task-creating
   * call answers 503, and a result that does not fit fails its task.
   * @default 268_435_456 (256 MiB)
   */
  maxStoredBytes?: number;
  /**
   * How long a task and its result stay once it ended (never past its time to live): a client
   * reads a result soon after the end, and an ended task only holds room meanwhile.
   * @default 600_000 (10 minutes)
   */
  resultTtlMs?: number;
  /**
   * Requests of the task methods (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`,
   * `tasks/update`) one caller may make per window: the principal with `auth`, else the session,
   * else the remote address, counted apart from `limits.toolRateLimit` (on every instance
   * together with a shared backend). Past it `-32004` with `data.retryAfterMs` (HTTP 429 with
   * `Retry-After`). `false` turns it off.
   * @default { limit: 600, windowMs: 10_000 }
   */
  pollRateLimit?: { limit: number; windowMs: number } | false;
  /**
   * Most task handlers one instance runs at once; past it a task-creating call answers 503
   * (`-32000`) with `Retry-After`.
   * @default 1_000
   */
  maxPerInstance?: number;
  /**
   * Largest task result kept, in bytes of its JSON. A larger one fails its task (`failed`, with
   * an error that says so) instead of being stored.
   * @default 1_048_576 (1 MiB)
   */
  maxResultBytes?: number;
  /**
   * A graceful shutdown gives the task handlers running on the instance this long to finish;
   * the tasks of those still running then fail (never left `working`). Zero or more.
   * @default 5_000
   */
  shutdownGraceMs?: number;
}

/**
 * Agent Skills: `skills` of `McpModule.forRoot()` (docs/skills.md), served from folders and from
 * application code (`McpSkills`). The folders are read once at startup; every problem (a bad
 * `SKILL.md`, a name that breaks the Agent Skills rules, a link out of the folder, a skill over a
 * limit) fails the start naming the file. Setting the group declares the extension.
 * @publicApi
 */
export interface McpSkillsOptions {
  /**
   * Folders to publish: every folder below one of them (at any depth) that holds a `SKILL.md` is
   * a skill, served at `skill://<its path below the folder>/SKILL.md`. When given, at least one.
   * @default [] (only the skills application code registers through `McpSkills`)
   */
  directories?: string[];
  /**
   * Most skills application code may register at runtime (`McpSkills.register`), on all
   * instances together; one more is refused. With the per-skill limits this bounds the memory
   * (and, on a shared backend, the storage) runtime skills take.
   * @default 100
   */
  maxRuntimeSkills?: number;
  /**
   * Serve `resources/directory/read` (and declare `directoryRead: true`), so a host can list a
   * skill's folders.
   * @default true
   */
  directoryRead?: boolean;
  /**
   * Most files one skill may hold, its `SKILL.md` and the files of skills nested in it
   * included. The extension's limit: hosts must accept skills up to it.
   * @default 512
   */
  maxFilesPerSkill?: number;
  /**
   * Most bytes the files of one skill may hold together. The extension's limit: hosts must
   * accept skills up to it.
   * @default 16_777_216 (16 MiB)
   */
  maxBytesPerSkill?: number;
  /**
   * Scopes a caller's token needs to see and read a skill (resource-server mode, docs/skills.md),
   * by the skill's path below its folder (`notes`, `acme/billing/refunds`): the skill is then
   * left out of `skills/list` and `resources/list` for a caller without them, and `skills/get`,
   * `resources/read` of its files and `resources/directory/read` of its folders answer 403
   * `insufficient_scope`, as for a resource with `@RequireScopes()`. A nested skill needs its
   * own scopes and those of the skills around it. A path that names no skill fails the start.
   * Without `auth` they change nothing.
   * @default {} (every skill open to every caller)
   */
  requiredScopes?: Record<string, string[]>;
  /**
   * Watch the folders (`node:fs` `watch`, recursive) and reload the skills when a file is added,
   * removed or edited: once the changes settle, everything is read and checked again as at
   * startup; a reload that finds a problem logs it (naming the file) and the previous skills
   * stay served. A reload that changed something sends `notifications/resources/list_changed`,
   * and `notifications/resources/updated` to subscribers of each file changed or removed.
   * @default false (the skills are read once, at startup)
   */
  watch?: boolean;
}

/** Each option group by its name in `McpModuleOptions`. */
export interface McpOptionGroups {
  sessions: McpSessionsOptions;
  transport: McpTransportOptions;
  limits: McpLimitsOptions;
  modern: McpModernOptions;
  delivery: McpDeliveryOptions;
  tasks: McpTasksOptions;
  telemetry: McpTelemetryOptions;
  skills: McpSkillsOptions;
}

/**
 * Options that shape the module graph, so they must be known synchronously even with
 * `forRootAsync` (they decide which controllers exist and on which path).
 * @publicApi
 */
export interface McpModuleExtras {
  /** Register the module globally. @default true */
  isGlobal?: boolean;
  /**
   * Streamable HTTP endpoint; `false` disables it.
   * - `mount: 'controller'` (default): a Nest controller, so middleware and guards or
   *   interceptors on the endpoint apply.
   * - `mount: 'direct'`: answered from the HTTP server's request listener before Express and
   *   Nest routing, several times faster per request; enhancers on MCP handlers still apply,
   *   route-level middleware and endpoint guards do not. Express platform only.
   * @default { path: '/mcp', mount: 'controller' }
   */
  http?: { path?: string; mount?: 'controller' | 'direct' } | false;
  /**
   * WebSocket endpoint (one JSON-RPC message per text frame, subprotocol `mcp`). Needs the
   * `ws` adapter: `app.useWebSocketAdapter(new WsAdapter(app))`.
   * @default false; `{}` means `{ path: '/ws', maxPayloadBytes: maxBodyBytes }`
   */
  ws?: { path?: string; maxPayloadBytes?: number } | false;
  /**
   * Legacy HTTP+SSE transport (protocol 2024-11-05) for old clients.
   * @default false; `{}` means `{ path: '/sse', messagesPath: '/messages' }`
   */
  sse?: { path?: string; messagesPath?: string } | false;
  /**
   * stdio transport: newline-delimited JSON-RPC on stdin/stdout. Start such an app with
   * `runMcpStdio()`, which keeps every log line off stdout. `maxLineBytes` defaults to
   * `maxBodyBytes`.
   * @default false
   */
  stdio?: boolean | { maxLineBytes?: number };
}

/**
 * The options after defaults are applied, flat (`MCP_RESOLVED_OPTIONS`); the library's providers
 * read them cut into groups (mcp-option-groups.ts), each its own. Internal: the public shape is `McpModuleOptions`, grouped; the
 * resolver (mcp-options.resolver.ts) maps one to the other.
 */
export interface ResolvedMcpOptions {
  serverInfo: McpServerInfo;
  instructions?: string;
  protocol: McpProtocolEras;
  protocolVersion?: McpProtocolVersion;
  wireProfile: McpWireProfile;
  pageSize: number;
  // sessions
  sessions: boolean;
  sessionIdleTimeoutMs: number;
  sessionCleanupIntervalMs: number;
  maxSessions: number;
  maxSessionsPerPrincipal?: number;
  maxSubscriptionsPerSession: number;
  // transport
  allowedOrigins?: string[];
  allowedHosts?: string[];
  validateProtocolVersionHeader: boolean;
  keepAliveMs: number;
  // limits
  maxBodyBytes: number;
  maxInFlightRequests: number;
  maxArgumentDepth: number;
  maxStreamsPerCaller: number;
  toolRateLimit?: { limit: number; windowMs: number };
  clientRequestTimeoutMs: number;
  // modern
  requestStateKeys?: (string | Buffer)[];
  requestStateTtlMs: number;
  cacheHints: McpCacheHints;
  maxListens: number;
  maxListensPerCaller: number;
  maxListenUris: number;
  // delivery
  replayBufferSize: number;
  maxStreamBufferBytes: number;
  listChangedDebounceMs: number;
  // tasks
  taskTtlMs: number;
  maxTaskTtlMs: number;
  taskPollIntervalMs: number;
  taskHandoffMs: number;
  maxTasksPerPrincipal: number;
  maxTasksPerInstance: number;
  maxTaskResultBytes: number;
  taskShutdownGraceMs: number;
  maxTaskBytesPerCaller: number;
  maxStoredTasks: number;
  maxStoredTaskBytes: number;
  taskResultTtlMs: number;
  taskPollRateLimit?: { limit: number; windowMs: number };
  /** The skills to load, with their defaults applied; undefined without the `skills` option. */
  skills?: Required<McpSkillsOptions>;
  telemetry: McpTelemetryOptions;
  auth?: McpAuthOptions;
}
