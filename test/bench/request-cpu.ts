/**
 * The server's own CPU per `tools/call echo`: a fixed number of requests against one server kind,
 * its `process.cpuUsage()` read over IPC before and after, divided by the count. CPU time, unlike
 * requests per second, barely moves when other processes share the machine, so a change to the
 * request path can be compared before and after on a busy machine.
 *
 *   node test/bench/build.mjs && node test/bench/results/.build/test/bench/request-cpu.js \
 *     [--era legacy|modern] [--requests 20000] [--rounds 3] [--telemetry api|off] [--prof DIR] kind...
 *
 * `kind` is a bench server kind (`library`, `library-direct`, `nest-floor`, `node-floor`,
 * `library-fastify`, `library-direct-fastify`, `nest-floor-fastify`). Each round sends
 * `--requests` requests at concurrency 16 after a warm-up of the same size; the best (lowest)
 * round is reported, with the others. `--prof DIR` writes a V8 CPU profile of the whole run.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BenchHttp, openSession, parseAnswer } from './client/http.js';
import { runLoad } from './client/load.js';
import { modernEchoRequest, modernHeaders } from './client/modern.js';
import { ServerProcess, type ServerKind } from './client/server-process.js';
import { formatProfile, summariseProfile } from './report/cpu-profile.js';
import { echoRequest } from './phases/echo.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    era: { type: 'string', default: 'legacy' },
    requests: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    telemetry: { type: 'string', default: 'api' },
    prof: { type: 'string' },
  },
});
const requests = Number(values.requests);
const rounds = Number(values.rounds);
const modern = values.era === 'modern';

const cpuUs = async (server: ServerProcess): Promise<number> => {
  const { cpu } = await server.command<{ cpu: { user: number; system: number } }>('cpu');
  return cpu.user + cpu.system;
};

async function measure(kind: ServerKind, profDir?: string): Promise<number[]> {
  const server = await ServerProcess.start(kind, {
    env: { BENCH_TELEMETRY: values.telemetry },
    ...(profDir ? { cpuProfDir: profDir } : {}),
  });
  const http = new BenchHttp(server.endpoint, 4);
  try {
    const headers = modern ? modernHeaders('tools/call', 'echo') : (await openSession(http)).headers;
    let seq = 0;
    const load = async () => {
      const result = await runLoad({
        url: server.endpoint,
        headers,
        concurrency: 16,
        durationS: 600,
        amount: requests,
        build: () => (modern ? modernEchoRequest(++seq) : echoRequest(++seq)),
        parse: parseAnswer,
      });
      if (result.errors > 0) throw new Error(`${kind}: ${result.errors} wrong answers: ${result.firstError}`);
    };
    await load();
    const perRequest: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const before = await cpuUs(server);
      await load();
      perRequest.push((await cpuUs(server)) - before);
    }
    return perRequest.map((us) => us / requests);
  } finally {
    http.close();
    await server.stop(30_000);
  }
}

for (const kind of positionals as ServerKind[]) {
  const profDir = values.prof ? mkdtempSync(join(values.prof, `${kind}-`)) : undefined;
  const perRequest = await measure(kind, profDir);
  const best = Math.min(...perRequest);
  console.log(
    `${kind} (${modern ? 'modern' : 'legacy'}, telemetry ${values.telemetry}): ${best.toFixed(1)} µs CPU per request (rounds: ${perRequest.map((us) => us.toFixed(1)).join(', ')})`,
  );
  const file = profDir && readdirSync(profDir).find((name) => name.endsWith('.cpuprofile'));
  if (file) console.log(formatProfile(summariseProfile(join(profDir, file), kind, undefined, 40)));
}
