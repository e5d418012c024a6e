import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { Injectable, Logger, type LoggerService } from '@nestjs/common';
import { McpTool } from '../decorators/mcp-tool.decorator.js';
import { toolError } from '../results/tool-result.helpers.js';
import { McpTestClient } from '../testing/mcp-testing-module.js';
import { McpToolLoggingHook } from './mcp-tool-logging.hook.js';

@Injectable()
class LoggedTools {
  @McpTool({
    name: 'ok',
    description: 'Succeeds',
    input: { type: 'object', properties: { secret: { type: 'string' } } },
  })
  ok() {
    return 'fine';
  }

  @McpTool({ name: 'throws', description: 'Throws' })
  throws(): never {
    throw new Error('broken on purpose');
  }

  @McpTool({ name: 'soft_fail', description: 'Returns an isError result' })
  softFail() {
    return toolError('not today');
  }
}

/** Every line written through Nest's Logger, as `level context: message`. */
const lines: string[] = [];
const record =
  (level: string) =>
  (message: unknown, ...rest: unknown[]) =>
    lines.push(`${level} ${String(rest.at(-1))}: ${String(message)}`);
const recorder: LoggerService = {
  log: record('log'),
  error: record('error'),
  warn: record('warn'),
  debug: record('debug'),
  verbose: record('verbose'),
  fatal: record('fatal'),
};

describe('McpToolLoggingHook', () => {
  let client: McpTestClient;

  beforeEach(async () => {
    client = await McpTestClient.create({ providers: [LoggedTools, McpToolLoggingHook] });
    Logger.overrideLogger(recorder);
    lines.length = 0;
  });

  afterEach(async () => {
    Logger.overrideLogger(false);
    await client.close();
  });

  const toolLines = () => lines.filter((line) => line.includes(' McpTools: '));

  it('logs a successful call once, at debug, with duration, request id and transport', async () => {
    await client.result('tools/call', { name: 'ok', arguments: {} });
    expect(toolLines()).toEqual([
      expect.stringMatching(/^debug McpTools: ok completed in \d+\.\d ms \(request \d+, streamable-http\)$/),
    ]);
  });

  it.each([
    ['throws', 'broken on purpose'],
    ['soft_fail', 'not today'],
  ])('logs a failed call (%s) once, at warn, with its reason', async (name, reason) => {
    await client.result('tools/call', { name, arguments: {} });
    expect(toolLines()).toEqual([
      expect.stringMatching(
        new RegExp(`^warn McpTools: ${name} failed in \\d+\\.\\d ms \\(request \\d+, streamable-http\\): ${reason}$`),
      ),
    ]);
  });

  it('never logs the arguments', async () => {
    await client.result('tools/call', { name: 'ok', arguments: { secret: 'hunter2' } });
    expect(toolLines()).toHaveLength(1);
    expect(toolLines()[0]).not.toContain('hunter2');
  });
});
