// setupFiles of the e2e-fastify project: this test file's apps (the fixture app, the gateway)
// run on Nest's Fastify platform. Each test file gets its own copy of process.env, so the e2e
// project's files, run by the same workers, stay on Express.
process.env.MCP_E2E_HTTP_PLATFORM = 'fastify';
