// globalTeardown of the e2e-redis-cluster project: stops the cluster redis-cluster-global-setup.mjs started.
export default async function teardown() {
  await globalThis.__MCP_E2E_REDIS_CLUSTER__?.stop();
}
