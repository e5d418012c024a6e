// globalTeardown of the e2e-redis project: stops the redis-server redis-global-setup.mjs started.
export default async function teardown() {
  const child = globalThis.__MCP_E2E_REDIS__;
  if (!child || child.exitCode !== null) return;
  // Killed if it has not exited 5 s after SIGTERM: the run does not wait on it for ever.
  await new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
