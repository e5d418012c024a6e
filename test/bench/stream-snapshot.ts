/**
 * What each session with an open GET stream holds, by constructor: `node
 * test/bench/results/.build/test/bench/stream-snapshot.js <kind> <n> [<dir>]` opens n streams on a
 * fresh server, takes a heap snapshot (after forced GC), opens n more, takes another, and prints
 * the difference per stream (count and self size per constructor / node type), largest first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BenchHttp, inPool, openSession } from './client/http.js';
import { ServerProcess, type ServerKind } from './client/server-process.js';
import { StreamSet, type WatchedStream } from './client/sse.js';

const [kind, size, dir = '/tmp'] = process.argv.slice(2);
if (!kind || !size) throw new Error('usage: stream-snapshot.js <kind> <n> [<dir>]');
const n = Number(size);

interface Row {
  count: number;
  bytes: number;
}

function summarize(file: string): Map<string, Row> {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const meta = snapshot.snapshot.meta;
  const fields: string[] = meta.node_fields;
  const types: string[] = meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const nodes: number[] = snapshot.nodes;
  const strings: string[] = snapshot.strings;
  const rows = new Map<string, Row>();
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    let name = strings[nodes[i + nameAt]];
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '(string)';
    else if (type === 'code') name = '(code)';
    else if (type === 'number') name = '(number)';
    else if (name.length > 60) name = name.slice(0, 60);
    const key = `${type}:${name}`;
    const row = rows.get(key) ?? { count: 0, bytes: 0 };
    row.count += 1;
    row.bytes += nodes[i + sizeAt];
    rows.set(key, row);
  }
  return rows;
}

const server = await ServerProcess.start(kind as ServerKind);
const http = new BenchHttp(server.endpoint, 32);
const set = new StreamSet('mem://counter');
const streams: WatchedStream[] = [];
const files: string[] = [];
try {
  for (const round of [0, 1]) {
    await inPool(round === 0 ? n + 50 : n, 32, async () => {
      streams.push(await set.open(server.endpoint, (await openSession(http)).headers));
    });
    const file = join(dir, `streams-${kind}-${round}.heapsnapshot`);
    files.push((await server.command<{ file: string }>('snapshot', { file }, 600_000)).file);
  }
} finally {
  for (const stream of streams) stream.close();
  http.agent.destroy();
  await server.stop();
}
const [a, b] = files.map(summarize);
const diff: Array<[string, number, number]> = [];
for (const [key, row] of b) {
  const was = a.get(key) ?? { count: 0, bytes: 0 };
  diff.push([key, (row.count - was.count) / n, (row.bytes - was.bytes) / n]);
}
for (const [key, was] of a) if (!b.has(key)) diff.push([key, -was.count / n, -was.bytes / n]);
diff.sort((x, y) => Math.abs(y[2]) - Math.abs(x[2]));
let total = 0;
for (const [, , bytes] of diff) total += bytes;
console.log(
  `${kind}: ${(total / 1024).toFixed(2)} KB of heap objects per stream session (snapshot ${n + 50} vs ${2 * n + 50})`,
);
for (const [key, count, bytes] of diff.slice(0, 70)) {
  if (Math.abs(bytes) < 8) break;
  console.log(`${bytes.toFixed(0).padStart(7)} B  ${count.toFixed(2).padStart(6)}x  ${key}`);
}
