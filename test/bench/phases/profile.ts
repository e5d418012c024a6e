/**
 * Where the library spends its time: the library fixture is started again with `--cpu-prof`,
 * driven through one scenario, and asked to exit so V8 writes the profile; only the samples
 * taken while the scenario ran (marked over IPC on the profile's clock) are summarised.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BenchHttp, callJsonTool, inPool, openSession, rpc } from '../client/http.js';
import { runLoad } from '../client/load.js';
import { listenBody, modernEchoRequest, modernHeaders } from '../client/modern.js';
import { ServerProcess, type ServerKind } from '../client/server-process.js';
import { StreamSet } from '../client/sse.js';
import type { BenchConfig } from '../config.js';
import { summariseProfile } from '../report/cpu-profile.js';
import { COUNTER_URI } from '../servers/fixture-spec.js';
import type { ProfileSummary } from '../types.js';
import { echoRequest } from './echo.js';
import { fanoutSizes } from './fanout.js';

const now = async (server: ServerProcess): Promise<number> => (await server.command<{ us: number }>('now')).us;

async function profiled(
  dir: string,
  scenario: string,
  drive: (server: ServerProcess) => Promise<{ fromUs: number; toUs: number }>,
  kind: ServerKind = 'library',
  env?: Record<string, string>,
): Promise<ProfileSummary> {
  mkdirSync(dir, { recursive: true });
  const server = await ServerProcess.start(kind, { cpuProfDir: dir, env });
  let window: { fromUs: number; toUs: number };
  try {
    window = await drive(server);
  } finally {
    await server.stop(30_000);
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile written in ${dir}`);
  return summariseProfile(join(dir, file), scenario, window);
}

/**
 * `tools/call echo` at concurrency 16. `env` sets the fixture up otherwise (`BENCH_TELEMETRY`: the
 * telemetry phase profiles its `off` and `api` modes side by side).
 */
export function profileEcho(
  config: BenchConfig,
  dir: string,
  kind: ServerKind = 'library',
  env?: Record<string, string>,
): Promise<ProfileSummary> {
  const seconds = Math.max(config.durationS, 5);
  const setup = env
    ? ` (${Object.entries(env)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')})`
    : '';
  return profiled(
    dir,
    `${kind}${setup} tools/call echo, concurrency 16, ${seconds} s`,
    async (server) => {
      const http = new BenchHttp(server.endpoint, 4);
      try {
        const session = await openSession(http);
        let seq = 0;
        const build = () => echoRequest(++seq);
        await runLoad({ url: server.endpoint, headers: session.headers, concurrency: 16, durationS: 1, build });
        const fromUs = await now(server);
        await runLoad({ url: server.endpoint, headers: session.headers, concurrency: 16, durationS: seconds, build });
        return { fromUs, toUs: await now(server) };
      } finally {
        http.close();
      }
    },
    kind,
    env,
  );
}

/** Five `bump`s to N subscribed streams, each awaited until every stream has it. */
export function profileFanout(
  config: BenchConfig,
  dir: string,
  requestedN: number,
  kind: ServerKind = 'library',
): Promise<ProfileSummary> {
  const { n } = fanoutSizes(config, requestedN);
  const bumps = 5;
  return profiled(
    dir,
    `${kind} fan-out: ${bumps} x bump to ${n} subscribed streams`,
    async (server) => {
      const http = new BenchHttp(server.endpoint, config.setupConcurrency);
      const set = new StreamSet(COUNTER_URI);
      try {
        const writer = await openSession(http);
        await inPool(n, config.setupConcurrency, async () => {
          const session = await openSession(http);
          await rpc(http, session, 'resources/subscribe', { uri: COUNTER_URI });
          await set.open(server.endpoint, session.headers);
        });
        await callJsonTool(http, writer, 'barrier');
        await set.waitUntil(() => set.totalListChanged >= n, 120_000);
        const fromUs = await now(server);
        for (let i = 1; i <= bumps; i++) {
          await callJsonTool(http, writer, 'bump');
          if (!(await set.waitUntil(() => (set.streamsWith[i] ?? 0) >= n, 120_000)))
            throw new Error('bump did not reach all');
        }
        return { fromUs, toUs: await now(server) };
      } finally {
        set.closeAll();
        http.close();
      }
    },
    kind,
  );
}

/** Modern (MCP 2026-07-28) `tools/call echo` at concurrency 16: no session, `_meta` and headers on every request. */
export function profileModernEcho(
  config: BenchConfig,
  dir: string,
  kind: ServerKind = 'library-direct',
): Promise<ProfileSummary> {
  const seconds = Math.max(config.eraDurationS, 5);
  return profiled(
    dir,
    `${kind} modern tools/call echo, concurrency 16, ${seconds} s`,
    async (server) => {
      let seq = 0;
      const load = (durationS: number) =>
        runLoad({
          url: server.endpoint,
          headers: modernHeaders('tools/call', 'echo'),
          concurrency: 16,
          durationS,
          build: () => modernEchoRequest(++seq),
        });
      await load(1);
      const fromUs = await now(server);
      await load(seconds);
      return { fromUs, toUs: await now(server) };
    },
    kind,
  );
}

/** Five `notifyResourceUpdated` calls to n `subscriptions/listen` streams, each awaited until every listen has it. */
export function profileListen(
  config: BenchConfig,
  dir: string,
  n: number,
  kind: ServerKind = 'library-direct',
): Promise<ProfileSummary> {
  const notifies = 5;
  return profiled(
    dir,
    `${kind} listen fan-out: ${notifies} x notify to ${n} listens`,
    async (server) => {
      const set = new StreamSet(COUNTER_URI);
      try {
        const headers = modernHeaders('subscriptions/listen');
        await inPool(n, config.setupConcurrency, async (i) => {
          await set.open(server.endpoint, headers, 30_000, listenBody(i + 1, [COUNTER_URI]));
        });
        await set.waitUntil(() => set.totalAcknowledged >= n, 120_000);
        const fromUs = await now(server);
        for (let i = 1; i <= notifies; i++) {
          await server.command('notify', { uri: COUNTER_URI });
          if (!(await set.waitUntil(() => (set.streamsWith[i] ?? 0) >= n, 120_000)))
            throw new Error('the notification did not reach every listen');
        }
        return { fromUs, toUs: await now(server) };
      } finally {
        set.closeAll();
      }
    },
    kind,
  );
}
