/**
 * The HTTP platform the e2e apps run on: Express unless `MCP_E2E_HTTP_PLATFORM=fastify` (the
 * `e2e-fastify` jest project sets it), so one suite runs on both of Nest's platforms.
 */
import type { AbstractHttpAdapter } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';

export type E2eHttpPlatform = 'express' | 'fastify';

/** The platform of this run. */
export const E2E_HTTP_PLATFORM: E2eHttpPlatform =
  process.env.MCP_E2E_HTTP_PLATFORM === 'fastify' ? 'fastify' : 'express';

/** A fresh adapter for one app on this run's platform; `undefined` for Nest's default (Express). */
export function e2eHttpAdapter(): AbstractHttpAdapter | undefined {
  return E2E_HTTP_PLATFORM === 'fastify' ? new FastifyAdapter() : undefined;
}
