// setupFiles of the e2e-redis project: this test file's in-process gateways run on the Redis of
// redis-global-setup.mjs. Each test file gets its own copy of process.env, so the e2e project's
// files, run by the same workers, stay in memory.
process.env.MCP_E2E_REDIS_URL = process.env.MCP_E2E_REDIS_SERVER;
