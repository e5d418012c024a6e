/**
 * No client can forge a log line: every site that logs a client's text (a JSON-RPC id, a tool
 * name, the text of an error a tool threw with the client's input in it) writes it escaped onto
 * its own line and bounded, and so do the console loggers the module and the gateway install.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { McpRequestContext } from '../context/mcp-request-context.js';
import { McpBackendUnavailableError } from '../backend/mcp-backend.interface.js';
import { McpToolHooks } from '../hooks/mcp-tool-hooks.js';
import { McpToolLoggingHook } from '../hooks/mcp-tool-logging.hook.js';
import { McpErrorMapper } from '../protocol/mcp-error.mapper.js';
import { StderrLogger } from '../transports/stdio/stderr.logger.js';
import { MAX_LOG_MESSAGE_CHARS } from './log-text.js';
import { McpConsoleLogger } from './mcp-console.logger.js';

/** A fake line of the server's own, after every character that starts a new line somewhere. */
const FAKE = '[Nest] 1  - 12/06/2026, 9:00:00 AM     LOG [McpAuth] admin signed in';
const FORGED = `x\n${FAKE}\r${FAKE}\u2028${FAKE}\u2029${FAKE}\u0085${FAKE}\u000b\u001b[31m${FAKE}`;
/** Neither of these may reach a log line raw. */
// eslint-disable-next-line no-control-regex
const LINE_BENDING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const HUGE = 'y'.repeat(200_000);

const context = (requestId: string) => ({ requestId, transport: 'http' }) as unknown as McpRequestContext;

type Level = 'log' | 'warn' | 'error' | 'debug';
interface Entry {
  level: Level;
  message: string;
  stack?: unknown;
}

/** What the module's loggers hand to the application's logger. */
function capture(): Entry[] {
  const entries: Entry[] = [];
  for (const level of ['log', 'warn', 'error', 'debug'] as const) {
    jest.spyOn(Logger.prototype, level).mockImplementation((message: unknown, ...params: unknown[]) => {
      entries.push({ level, message: String(message), stack: params.length > 0 ? params[0] : undefined });
    });
  }
  return entries;
}

const hooksWith = (hook: object) => {
  const hooks = new McpToolHooks();
  hooks.add(hook);
  return hooks;
};

/** The log sites that carry client text, each driven with `text` where the client's goes. */
const SITES: ReadonlyArray<[string, (text: string) => unknown]> = [
  [
    'error mapper: an unexpected error thrown by a tool',
    (text) => new McpErrorMapper().internal(new Error(text), 'tools/call'),
  ],
  [
    'error mapper: the method and tool name of the request',
    (text) => new McpErrorMapper().internal(new Error('boom'), `tools/call ${text}`),
  ],
  ['error mapper: a value thrown that is no Error', (text) => new McpErrorMapper().internal({ text }, 'tools/call')],
  [
    'error mapper: a backend outage',
    (text) => new McpErrorMapper().toException(new McpBackendUnavailableError(text), 'resources/read'),
  ],
  [
    'tool log: a call that completed (the JSON-RPC id)',
    (text) =>
      new McpToolLoggingHook().onToolCompleted({
        tool: 'echo',
        arguments: {},
        result: {},
        context: context(text),
        durationMs: 1,
      }),
  ],
  [
    'tool log: a call that failed (its error text and id)',
    (text) =>
      new McpToolLoggingHook().onToolFailed({
        tool: 'echo',
        arguments: {},
        error: new Error(text),
        context: context(text),
        durationMs: 1,
      }),
  ],
  [
    'tool log: a call to an unknown tool (its name)',
    (text) =>
      new McpToolLoggingHook().onToolRejected({
        tool: text,
        reason: 'unknown-tool',
        error: new Error(text),
        context: context(text),
      }),
  ],
  [
    'tool hooks: a hook that threw (the tool name and its error)',
    (text) =>
      hooksWith({
        onToolRejected: () => {
          throw new Error(text);
        },
      }).rejected({ tool: text, reason: 'unknown-tool', error: undefined, context: context('1') }),
  ],
];

describe('log lines with client text', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it.each(SITES)('%s: stays on its line', async (_site, log) => {
    const entries = capture();
    await log(FORGED);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(entry.message).not.toMatch(LINE_BENDING);
      // Kept, escaped: the line still says what the client sent.
      expect(entry.message).toContain(FAKE);
      // A stack keeps its frames, one per line, and never the client's text.
      if (typeof entry.stack === 'string') {
        for (const line of entry.stack.split('\n')) expect(line).toMatch(/^\s+at |^\s+\.\.\. \d+ more frames$/);
      }
    }
  });

  it.each(SITES)('%s: is bounded', async (_site, log) => {
    const entries = capture();
    await log(HUGE);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(entry.message.length).toBeLessThanOrEqual(MAX_LOG_MESSAGE_CHARS);
      expect(entry.message).toMatch(/characters in all\]$/);
    }
  });

  it('every logger of the libraries is an McpLogger (or the line would skip the escaping)', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && /new Logger\(/.test(readFileSync(path, 'utf8')))
          offenders.push(path);
      }
    };
    walk(join(process.cwd(), 'libs'));
    expect(offenders).toEqual([]);
  });
});

describe.each([
  ['McpConsoleLogger', () => new McpConsoleLogger('Test', { colors: false })],
  ['StderrLogger (stdio)', () => new StderrLogger()],
])('%s', (_name, create) => {
  /** Everything the logger writes to stdout and stderr while `fn` runs. */
  function written(fn: () => void): string {
    let out = '';
    const write = (chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    };
    jest.spyOn(process.stdout, 'write').mockImplementation(write);
    jest.spyOn(process.stderr, 'write').mockImplementation(write);
    try {
      fn();
    } finally {
      jest.restoreAllMocks();
    }
    return out;
  }

  it('writes a message with client text as one line', () => {
    const logger = create();
    const out = written(() => logger.warn(`Unknown tool ${FORGED}`));
    expect(out.split('\n')).toHaveLength(2);
    expect(out.split('\n').filter((line) => LINE_BENDING.test(line))).toEqual([]);
    expect(out).toContain(`x\\n${FAKE}`);
  });

  it("writes an error's stack with its text on one line and its frames below", () => {
    const logger = create();
    const error = new Error(FORGED);
    const out = written(() => logger.error('Unexpected error', error.stack));
    const lines = out.trimEnd().split('\n');
    expect(lines[1]).toContain(`Error: x\\n${FAKE}`);
    for (const line of lines.slice(2)) expect(line).toMatch(/^\s+at /);
    expect(lines.filter((line) => LINE_BENDING.test(line))).toEqual([]);
  });

  it('bounds a message', () => {
    const logger = create();
    const out = written(() => logger.log(HUGE));
    expect(out.length).toBeLessThan(MAX_LOG_MESSAGE_CHARS + 300);
  });
});
