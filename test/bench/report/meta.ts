/** Date, machine, Node and package versions for the report. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { BenchMeta } from '../types.js';

/** The repository root: the nearest folder above this file that holds libs/mcp/package.json. */
const ROOT = ((): URL => {
  for (let dir = new URL('./', import.meta.url); dir.pathname !== '/'; dir = new URL('../', dir)) {
    if (existsSync(new URL('libs/mcp/package.json', dir))) return dir;
  }
  return new URL(`file://${process.cwd()}/`);
})();

function versionOf(pkg: string): string {
  try {
    return JSON.parse(readFileSync(new URL(`node_modules/${pkg}/package.json`, ROOT), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    if (line) return line.split(':')[1].trim();
  } catch {
    // not Linux
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function git(): string | undefined {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return undefined;
  }
}

export function collectMeta(durationS: number, smoke: boolean, fdLimit: number): BenchMeta {
  const library = JSON.parse(readFileSync(new URL('libs/mcp/package.json', ROOT), 'utf8'));
  return {
    date: new Date().toISOString(),
    smoke,
    machine: {
      cpus: os.availableParallelism(),
      model: cpuModel(),
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      fdLimit,
      kernel: os.release(),
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    },
    node: process.version,
    versions: {
      [library.name]: library.version,
      '@nestjs/core': versionOf('@nestjs/core'),
      '@nestjs/platform-express': versionOf('@nestjs/platform-express'),
      '@modelcontextprotocol/sdk': versionOf('@modelcontextprotocol/sdk'),
      '@modelcontextprotocol/server': versionOf('@modelcontextprotocol/server'),
      '@modelcontextprotocol/node': versionOf('@modelcontextprotocol/node'),
      '@modelcontextprotocol/fastify': versionOf('@modelcontextprotocol/fastify'),
      '@nestjs/platform-fastify': versionOf('@nestjs/platform-fastify'),
      fastify: versionOf('fastify'),
      tmcp: versionOf('tmcp'),
      '@tmcp/transport-http': versionOf('@tmcp/transport-http'),
      ioredis: versionOf('ioredis'),
      express: versionOf('express'),
      zod: versionOf('zod'),
      autocannon: versionOf('autocannon'),
      '@opentelemetry/api': versionOf('@opentelemetry/api'),
      '@opentelemetry/sdk-node': versionOf('@opentelemetry/sdk-node'),
    },
    git: git(),
    durationS,
  };
}
