/**
 * Counts the places one POST `tools/call` visits in the library, from the transport to the tool
 * and back: V8's precise coverage (call counts, function granularity) is taken around exactly one
 * request to an in-process app, and every function of `libs/mcp/src` that ran is listed with how
 * often. Exact and repeatable, unlike a sampled profile.
 *
 *   node test/bench/build.mjs && node test/bench/results/.build/test/bench/request-visits.js \
 *     [--mount direct|controller] [--era legacy|modern] [--list]
 *
 * Prints the number of distinct library functions that ran ("places") and the calls into them
 * ("function visits"); `--list` prints each with its count.
 */
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { McpArgs, McpModule, McpTool } from '../../libs/mcp/src/index.js';
import { modernHeaders, modernMeta } from './client/modern.js';

const { values } = parseArgs({
  options: {
    mount: { type: 'string', default: 'direct' },
    era: { type: 'string', default: 'legacy' },
    list: { type: 'boolean', default: false },
  },
});
const mount = values.mount === 'controller' ? 'controller' : 'direct';
const modern = values.era === 'modern';

@Injectable()
class EchoTool {
  @McpTool({ name: 'echo', description: 'Answers the text it is given.', input: z.object({ text: z.string() }) })
  echo(@McpArgs('text') text: string): string {
    return text;
  }
}

@Module({
  imports: [McpModule.forRoot({ serverInfo: { name: 'visits', version: '1.0.0' }, http: { path: '/mcp', mount } })],
  providers: [EchoTool],
})
class VisitsModule {}

const LIBRARY = '/libs/mcp/src/';

interface FunctionCoverage {
  functionName: string;
  ranges: { startOffset: number; count: number }[];
}

async function main(): Promise<void> {
  const app = await NestFactory.create(VisitsModule, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
  const post = async (body: object, headers: Record<string, string> = {}) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
    return { headers: response.headers, text: await response.text() };
  };
  let headers: Record<string, string> = modernHeaders('tools/call', 'echo');
  if (!modern) {
    const init = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'visits', version: '1.0.0' } },
    });
    headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  }
  const call = (id: number) =>
    post(
      {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: `t${id}` }, ...(modern ? { _meta: modernMeta() } : {}) },
      },
      headers,
    );
  // Warm: lazy paths (first-call caches) are not what every request visits.
  for (let id = 1; id <= 50; id++) await call(id);

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage');
  const answer = await call(1000);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  if (!answer.text.includes('t1000')) throw new Error(`unexpected answer: ${answer.text}`);

  const visited: { name: string; count: number }[] = [];
  for (const script of result) {
    const at = script.url.indexOf(LIBRARY);
    if (at === -1) continue;
    const file = script.url.slice(at + LIBRARY.length);
    for (const fn of script.functions as FunctionCoverage[]) {
      // The first range of a function is its whole body; the top-level script has no name.
      const count = fn.ranges[0]?.count ?? 0;
      if (count > 0 && fn.functionName !== '') visited.push({ name: `${file} ${fn.functionName}`, count });
      else if (count > 0 && fn.ranges[0].startOffset > 0) visited.push({ name: `${file} (anonymous)`, count });
    }
  }
  visited.sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  const visits = visited.reduce((sum, { count }) => sum + count, 0);
  console.log(
    `POST tools/call (${modern ? 'modern' : 'legacy'} era, ${mount} mount): ${visited.length} places, ${visits} function visits in libs/mcp/src`,
  );
  if (values.list) for (const { name, count } of visited) console.log(`  ${String(count).padStart(3)}  ${name}`);
  await app.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
