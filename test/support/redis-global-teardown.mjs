// globalTeardown of the e2e-redis project: stops the redis-server redis-global-setup.mjs started.
export default async function teardown() {
  const child = globalThis.__MCP_E2E_REDIS__;
  if (!child || child.exitCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}
