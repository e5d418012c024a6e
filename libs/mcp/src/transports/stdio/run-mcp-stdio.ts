import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpStdioTransport } from './mcp-stdio.transport.js';
import { StderrLogger } from './stderr.logger.js';

/**
 * Runs an application as an MCP server over stdio: no HTTP listener, every log line (from the
 * first line of Nest's bootstrap on) and every `console.log` on stderr, stdout reserved for
 * JSON-RPC. Resolves when stdin ends and the application has closed; the caller exits.
 *
 * The module must import `McpModule.forRoot({ ..., stdio: true, http: false })`.
 *
 * @example
 * ```ts
 * if (process.argv.includes('--stdio')) {
 *   await runMcpStdio(AppModule);
 *   process.exit(0);
 * }
 * ```
 * @publicApi
 */
export async function runMcpStdio(module: Type<unknown> | DynamicModule): Promise<void> {
  redirectConsoleToStderr();
  const app = await NestFactory.createApplicationContext(module, { logger: new StderrLogger() });
  app.enableShutdownHooks();
  await app.init();
  await app.get(McpStdioTransport, { strict: false }).finished;
  await app.close();
}

function redirectConsoleToStderr(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.warn = toStderr;
  console.debug = toStderr;
}
