#!/usr/bin/env node
// Runs every SERVER scenario of the official MCP conformance suite (@modelcontextprotocol/conformance,
// a devDependency pinned in package.json) against this project's conformance fixture app
// (test/conformance/fixture), once per wire profile. `npm run test:conformance` runs both.
//
//   node test/conformance/run.mjs [--profile gateway|strict|all] [--scenario NAME]... [--verbose] [--keep]
//
// For each profile it builds the fixture if needed, starts it on a free 127.0.0.1 port
// (URLS=http://127.0.0.1:0, MCP_WIRE_PROFILE=<profile>), waits for it to answer, runs each scenario
// in its own process with a timeout (a bounded number at a time), prints one line per scenario
// and ends with the line `<profile>: N passed, M failed` (naming baselined failures as expected).
// The fixture is always stopped.
//
// A scenario PASSES when it wrote its checks.json and none of its checks is a FAILURE (WARNING and
// INFO do not fail it); a timeout or a crash FAILS it. Expected failures per profile come from
// baseline.<profile>.yml next to this file (the suite's --expected-failures format: names under
// `server:`); a profile without such a file has none. Exit code 1 when a scenario fails that is not
// in the baseline or when a baseline entry passes (stale); 2 on setup errors; 0 otherwise.
//
// Environment: CONFORMANCE_PARALLEL (scenarios at once, default 4), CONFORMANCE_TIMEOUT (seconds per
// scenario, default 30), CONFORMANCE_VERBOSE=1 (same as --verbose: also WARNING checks and the
// fixture's log), MCP_FIXTURE_LOGS=1 (the fixture logs everything to its stderr).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFixtureIfNeeded, FIXTURE_ENTRY } from './build-fixture.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const SHIM = join(HERE, 'shim', 'register.mjs');
const PROFILES = ['gateway', 'strict'];
const STARTUP_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

const require = createRequire(import.meta.url);
const SUITE_PACKAGE = require.resolve('@modelcontextprotocol/conformance/package.json');
const SUITE_VERSION = JSON.parse(readFileSync(SUITE_PACKAGE, 'utf8')).version;
const CLI = join(dirname(SUITE_PACKAGE), 'dist', 'index.js');
const CONFORMANCE = ['--no-warnings', '--import', SHIM, CLI];

// ---- arguments ---------------------------------------------------------------------------------

function parseArgs(argv) {
  const args = { profiles: PROFILES, scenarios: [], verbose: process.env.CONFORMANCE_VERBOSE === '1', keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) usage(`${arg} needs a value`);
      return next;
    };
    if (arg === '--profile') {
      const profile = value();
      if (profile !== 'all' && !PROFILES.includes(profile)) usage(`unknown profile '${profile}'`);
      args.profiles = profile === 'all' ? PROFILES : [profile];
    } else if (arg === '--scenario') args.scenarios.push(value());
    else if (arg === '--verbose') args.verbose = true;
    else if (arg === '--keep') args.keep = true;
    else if (arg === '-h' || arg === '--help') usage();
    else usage(`unknown argument '${arg}'`);
  }
  return args;
}

function usage(error) {
  const help = readFileSync(fileURLToPath(import.meta.url), 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => line.startsWith('//'))
    .map((line) => line.replace(/^\/\/ ?/, ''))
    .join('\n');
  if (error) console.error(`run.mjs: ${error}\n`);
  console.error(help);
  process.exit(error ? 2 : 0);
}

const positiveInt = (name, fallback) => {
  const raw = process.env[name];
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) usage(`${name} must be a positive integer, not '${raw}'`);
  return value;
};

// ---- child processes (every one we start is stopped, whatever happens) ---------------------------

const children = new Set();

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

const exited = (child) => child.exitCode !== null || child.signalCode !== null;

/** SIGTERM, then SIGKILL after the grace period; resolves when the process is gone. */
function stop(child, graceMs = STOP_GRACE_MS) {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

process.on('exit', () => {
  for (const child of children) if (!exited(child)) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.error(`\nrun.mjs: ${signal}, stopping ${children.size} child process(es)`);
    void Promise.all([...children].map((child) => stop(child, 2_000))).then(() => process.exit(130));
  });
}

/** Runs a command to completion, collecting its output (both streams, interleaved). */
function run(command, args, { timeoutMs, env } = {}) {
  return new Promise((resolve) => {
    const child = track(
      spawn(command, args, { cwd: ROOT, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          void stop(child);
        }, timeoutMs)
      : undefined;
    child.on('error', (error) => (output += `\n${error.message}`));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, output });
    });
  });
}

// ---- the suite ---------------------------------------------------------------------------------

async function listServerScenarios() {
  const listed = await run(process.execPath, [...CONFORMANCE, 'list', '--server'], { timeoutMs: 30_000 });
  const names = [...listed.output.matchAll(/^ {2}- (\S+)/gm)].map((match) => match[1]);
  if (listed.code !== 0 || names.length === 0) {
    throw new Error(`could not list the server scenarios (exit ${listed.code}):\n${listed.output.trim()}`);
  }
  return names;
}

/** Names listed under `server:` (or, in a file without sections, every `- name` line). */
function readBaseline(file) {
  const text = readFileSync(file, 'utf8');
  const names = new Set();
  let inServer = !/^server\s*:/m.test(text);
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/#.*$/, '').trimEnd();
    if (!line.trim()) continue;
    if (/^\S[^:]*:\s*$/.test(line)) {
      inServer = /^server\s*:/.test(line);
      continue;
    }
    const match = line.match(/^\s*-\s*([A-Za-z0-9_./-]+)\s*$/);
    if (match && inServer) names.add(match[1]);
  }
  return names;
}

/** The checks.json the CLI wrote somewhere below `dir` (it adds a scenario-and-time folder). */
function findChecks(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === 'checks.json') return path;
    if (entry.isDirectory()) {
      const found = findChecks(path);
      if (found) return found;
    }
  }
  return undefined;
}

async function runScenario(url, scenario, outDir, timeoutMs) {
  const dir = join(outDir, scenario);
  rmSync(dir, { recursive: true, force: true });
  const started = Date.now();
  const result = await run(
    process.execPath,
    [...CONFORMANCE, 'server', '--url', url, '--scenario', scenario, '-o', dir],
    {
      timeoutMs,
    },
  );
  const seconds = (Date.now() - started) / 1000;
  try {
    writeFileSync(join(outDir, `${scenario}.log`), result.output);
  } catch {
    // the folder may be gone after an interrupt
  }
  const checksFile = existsSync(dir) ? findChecks(dir) : undefined;
  if (result.timedOut || !checksFile) {
    const lastLine = result.output.trim().split('\n').slice(-1)[0] ?? '';
    const reason = result.timedOut
      ? `TIMEOUT after ${timeoutMs / 1000}s`
      : `no checks.json (exit ${result.code ?? result.signal}) ${lastLine}`;
    return { scenario, ok: false, seconds, reason, checks: [], output: result.output };
  }
  const checks = JSON.parse(readFileSync(checksFile, 'utf8'));
  const count = (status) => checks.filter((check) => check.status === status).length;
  const failures = count('FAILURE');
  return {
    scenario,
    ok: failures === 0,
    seconds,
    reason: `${count('SUCCESS')} ok, ${failures} fail, ${count('WARNING')} warn`,
    checks,
    output: result.output,
  };
}

/** Runs `work` over `items`, at most `limit` at a time, keeping the input order in the result. */
async function pool(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// ---- the fixture -------------------------------------------------------------------------------

async function startFixture(profile) {
  const child = track(
    spawn(process.execPath, [FIXTURE_ENTRY], {
      cwd: ROOT,
      env: { ...process.env, URLS: 'http://127.0.0.1:0', MCP_WIRE_PROFILE: profile },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const fixture = { child, log: '', url: undefined };
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (fixture.log += chunk));
  try {
    fixture.url = await new Promise((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(
        () => reject(new Error(`no ready line within ${STARTUP_TIMEOUT_MS / 1000}s`)),
        STARTUP_TIMEOUT_MS,
      );
      child.stdout.on('data', (chunk) => {
        fixture.log += chunk;
        stdout += chunk;
        const match = stdout.match(/listening on (http:\/\/\S+\/mcp)/);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the fixture exited (${code ?? signal}) before listening`));
      });
      child.once('error', reject);
    });
    await waitUntilAnswering(fixture.url);
    return fixture;
  } catch (error) {
    await stop(child);
    throw new Error(`${error.message}\n--- fixture output ---\n${fixture.log.trim()}`);
  }
}

/** Polls with a JSON-RPC ping until the endpoint answers over HTTP at all (any status). */
async function waitUntilAnswering(url) {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
        signal: AbortSignal.timeout(5_000),
      });
      await response.body?.cancel();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} does not answer: ${error.message}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

// ---- one profile -------------------------------------------------------------------------------

const oneLine = (text, max) =>
  String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);

async function runProfile(profile, scenarios, options) {
  const baselineFile = join(HERE, `baseline.${profile}.yml`);
  const baseline = existsSync(baselineFile) ? readBaseline(baselineFile) : new Set();
  const outDir = mkdtempSync(join(tmpdir(), `mcp-conformance-${profile}-`));
  const baselineNote = existsSync(baselineFile) ? relative(ROOT, baselineFile) : 'none';
  console.log(`\n== wire profile ${profile} (baseline: ${baselineNote}) ==`);

  let fixture;
  let results;
  const started = Date.now();
  try {
    fixture = await startFixture(profile);
    console.log(
      `MCP conformance ${SUITE_VERSION} | ${scenarios.length} scenarios | ${fixture.url} | parallel=${options.parallel} timeout=${options.timeoutMs / 1000}s | results: ${outDir}`,
    );
    results = await pool(scenarios, options.parallel, (scenario) =>
      runScenario(fixture.url, scenario, outDir, options.timeoutMs),
    );
  } finally {
    if (fixture) await stop(fixture.child);
  }

  let passed = 0;
  let failed = 0;
  const unexpected = [];
  const stale = [];
  const pad = Math.max(...scenarios.map((name) => name.length));
  for (const result of results) {
    const listed = baseline.has(result.scenario);
    let tag;
    if (result.ok) {
      passed++;
      tag = listed ? 'STALE' : 'PASS';
      if (listed) stale.push(result.scenario);
    } else {
      failed++;
      tag = listed ? 'XFAIL' : 'FAIL';
      if (!listed) unexpected.push(result.scenario);
    }
    console.log(`${tag.padEnd(5)} ${result.scenario.padEnd(pad)}  ${result.reason}  (${result.seconds.toFixed(1)}s)`);
    const shown = result.checks.filter(
      (check) => check.status === 'FAILURE' || (options.verbose && check.status === 'WARNING'),
    );
    for (const check of shown) {
      console.log(`        ${check.status} ${check.id}: ${oneLine(check.errorMessage ?? check.description, 600)}`);
    }
    if (!result.ok && result.checks.length === 0 && result.output.trim()) {
      for (const line of result.output.trim().split('\n').slice(-15)) console.log(`        | ${line}`);
    }
  }
  const notRun = [...baseline].filter((name) => !scenarios.includes(name));
  if (baseline.size > 0) {
    console.log(
      `baseline: ${failed - unexpected.length} expected failure(s), ${unexpected.length} unexpected failure(s), ${stale.length} stale entr${stale.length === 1 ? 'y' : 'ies'}` +
        (notRun.length ? `, ${notRun.length} not run (${notRun.join(', ')})` : ''),
    );
  }
  for (const name of unexpected) console.log(`FAILED: ${name} failed and is not in the baseline`);
  for (const name of stale) console.log(`STALE: ${name} passes but is listed in ${baselineNote}: remove it`);
  if (options.verbose && fixture?.log.trim()) {
    console.log('--- fixture output ---');
    console.log(fixture.log.trim());
  }
  const ok = unexpected.length === 0 && stale.length === 0;
  if (ok && !options.keep) rmSync(outDir, { recursive: true, force: true });
  else console.log(`per-scenario logs and checks kept in ${outDir}`);
  console.log(`elapsed: ${((Date.now() - started) / 1000).toFixed(1)}s`);
  // Expected (baselined) failures are named on the line, so it never reads as a plain failure count.
  const expected = failed - unexpected.length;
  console.log(
    expected > 0
      ? `${profile}: ${passed} passed, ${failed} failed (${expected} expected by the baseline, ${unexpected.length} unexpected)`
      : `${profile}: ${passed} passed, ${failed} failed`,
  );
  return ok;
}

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const options = {
    parallel: positiveInt('CONFORMANCE_PARALLEL', 4),
    timeoutMs: positiveInt('CONFORMANCE_TIMEOUT', 30) * 1000,
    verbose: args.verbose,
    keep: args.keep,
  };
  try {
    buildFixtureIfNeeded();
  } catch (error) {
    console.error(`run.mjs: ${error.message}`);
    return 2;
  }
  let scenarios;
  try {
    const all = await listServerScenarios();
    const unknown = args.scenarios.filter((name) => !all.includes(name));
    if (unknown.length) {
      console.error(`run.mjs: unknown scenario(s): ${unknown.join(', ')}\navailable: ${all.join(' ')}`);
      return 2;
    }
    scenarios = args.scenarios.length ? args.scenarios : all;
  } catch (error) {
    console.error(`run.mjs: ${error.message}`);
    return 2;
  }
  let ok = true;
  for (const profile of args.profiles) {
    try {
      if (!(await runProfile(profile, scenarios, options))) ok = false;
    } catch (error) {
      console.error(`run.mjs: profile ${profile}: ${error.message}`);
      return 2;
    }
  }
  return ok ? 0 : 1;
}

process.exit(await main());
