/**
 * "WebSocket back-pressure and concurrency" and its stdio twin: a client that stops
 * reading and keeps sending calls must not grow the server by hundreds of MiB (it did: 107 → 768
 * MiB over WebSocket, 99 → 727 MiB over stdio, for 100,000 calls). The server is the built
 * gateway in a child process, measured over IPC after a full collection.
 */
import { buildGatewayIfNeeded, spawnStdioGateway, type StdioGateway } from '../support/stdio-client.js';
import {
  PROBED_STDIO_GATEWAY,
  probe,
  probeUntil,
  startProbedHttpGateway,
  type HttpGatewayProcess,
} from '../support/probed-gateway.js';
import { within } from '../support/http-wire.js';
import { openWs, wsUrl, type RawWsClient } from '../support/ws-client.js';

const CALLS = 100_000;
const BATCH = 5_000;
const MiB = 1024 * 1024;
/** "Tens of MiB at most": the growth allowed while a client floods without reading. */
const MAX_GROWTH = 64 * MiB;
const FIRST_ID = 1_000_000;

const echoCall = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`;

beforeAll(async () => {
  await buildGatewayIfNeeded();
}, 240_000);

describe('a WebSocket client that stops reading', () => {
  let gateway: HttpGatewayProcess | undefined;
  let client: RawWsClient | undefined;

  afterEach(async () => {
    client?.socket.terminate();
    await gateway?.stop();
  });

  it(`is closed with 1013 while it sends ${CALLS.toLocaleString('en')} calls, and the server grows by tens of MiB at most`, async () => {
    gateway = await startProbedHttpGateway();
    client = await openWs(wsUrl(gateway.origin));
    await client.initialize();
    for (let i = 0; i < 100; i++) await client.request('tools/call', { name: 'echo', arguments: { text: 'warm' } });
    const before = await gateway.probe();

    client.socket.pause();
    let peak = before.memory.rss;
    for (let sent = 0; sent < CALLS; sent += BATCH) {
      const frames = Array.from({ length: BATCH }, (_, i) => echoCall(FIRST_ID + sent + i));
      const last = frames.pop()!;
      for (const frame of frames) client.socket.send(frame);
      await new Promise<void>((resolve, reject) => client!.socket.send(last, (e) => (e ? reject(e) : resolve())));
      peak = Math.max(peak, (await gateway.probe()).memory.rss);
    }
    expect(peak - before.memory.rss).toBeLessThan(MAX_GROWTH);

    // Reading again, the client finds the close the server sent when its backlog passed the cap.
    client.socket.resume();
    const closed = await within(client.closed, 30_000, 'the close of the flooding client');
    expect(closed.code).toBe(1013);

    // The server itself serves on.
    const next = await openWs(wsUrl(gateway.origin));
    await next.initialize();
    const echoed = await next.request('tools/call', { name: 'echo', arguments: { text: 'after' } });
    expect(echoed.result.structuredContent).toEqual({ text: 'after' });
    await next.close();
  }, 120_000);
});

describe('a stdio client that stops reading', () => {
  let proc: StdioGateway | undefined;

  afterEach(async () => {
    proc?.child.stdout.resume();
    await proc?.stop(10_000);
  });

  it(`stops being read while its output is unread, stays bounded, and gets all ${CALLS.toLocaleString('en')} answers once it reads again`, async () => {
    proc = spawnStdioGateway({}, PROBED_STDIO_GATEWAY);
    await proc.initialize();
    for (let i = 0; i < 100; i++) await proc.request('tools/call', { name: 'echo', arguments: { text: 'warm' } });
    const before = await probe(proc.child);

    proc.child.stdout.pause();
    const answersFrom = proc.messages.length;
    for (let sent = 0; sent < CALLS; sent += BATCH) {
      const lines = Array.from({ length: BATCH }, (_, i) => `${echoCall(FIRST_ID + sent + i)}\n`);
      proc.child.stdin.write(lines.join(''));
    }

    // The server stops reading stdin: what it has not taken stays with the client.
    const held = await probeUntil(proc.child, (state) => state.stdinFlowing === false, 'stdin paused');
    expect(held.stdoutBacklog).toBeGreaterThan(0);
    expect(proc.child.stdin.writableLength).toBeGreaterThan(0);
    expect(held.memory.rss - before.memory.rss).toBeLessThan(MAX_GROWTH);

    // Read again: every call is answered, once, with its result or a -32004 refusal.
    const seen = new Set<number>();
    const unexpected: unknown[] = [];
    proc.child.stdout.resume();
    await proc.waitFor(
      (message) => {
        if (typeof message.id !== 'number' || message.id < FIRST_ID) return false;
        const expected = message.error
          ? message.error.code === -32004
          : message.result?.structuredContent?.text === 'x';
        if (seen.has(message.id) || !expected) unexpected.push(message);
        seen.add(message.id);
        return seen.size === CALLS;
      },
      90_000,
      answersFrom,
    );
    expect(unexpected).toEqual([]);
    const after = await proc.request('tools/call', { name: 'echo', arguments: { text: 'after' } });
    expect(after.result.structuredContent).toEqual({ text: 'after' });
  }, 150_000);
});

describe('a stdio client whose answers pass twice the output cap', () => {
  let proc: StdioGateway | undefined;

  afterEach(async () => {
    proc?.child.stdout.resume();
    await proc?.stop(10_000);
  });

  it('gets every answer: only notifications may be dropped, never a response', async () => {
    proc = spawnStdioGateway({}, PROBED_STDIO_GATEWAY);
    await proc.initialize();
    // 100 reads of a 64 KiB note in one write: all run at once (the in-flight bound is 100) and
    // their answers pass twice the 1 MiB output cap while nobody reads.
    const created = await proc.request('tools/call', {
      name: 'notes.create',
      arguments: { title: 'large', body: 'x'.repeat(64 * 1024) },
    });
    const uri: string = created.result.structuredContent.uri;
    const text: string = (await proc.request('resources/read', { uri })).result.contents[0].text;
    const ids = Array.from({ length: 100 }, (_, i) => FIRST_ID + i);
    proc.child.stdout.pause();
    const answersFrom = proc.messages.length;
    proc.child.stdin.write(
      ids.map((id) => `{"jsonrpc":"2.0","id":${id},"method":"resources/read","params":{"uri":"${uri}"}}\n`).join(''),
    );
    await probeUntil(
      proc.child,
      (state) => (state.stdoutBacklog ?? 0) > 2 * MiB,
      'an output backlog over twice the cap',
    );

    proc.child.stdout.resume();
    const answered = new Map<number, any>();
    await proc
      .waitFor(
        (message) => {
          if (ids.includes(message.id)) answered.set(message.id, message);
          return answered.size === ids.length;
        },
        10_000,
        answersFrom,
      )
      .catch(() => undefined);
    expect(ids.filter((id) => !answered.has(id))).toEqual([]);
    for (const answer of answered.values()) expect(answer.result.contents[0].text).toBe(text);
  }, 60_000);
});
