/** Jest 30 in native ESM mode (run through `node --experimental-vm-modules`). */
const shared = {
  // Jest's 5 s default fails tests that start servers, apps or Redis instances on a busy 2-core
  // machine (and a test that timed out runs on in the background). Every project gets 30 s; a test
  // that needs more says so itself.
  testTimeout: 30_000,
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  moduleNameMapper: {
    '^@app/mcp$': '<rootDir>/libs/mcp/src/index.ts',
    // The package name, as the README's examples import it (test/readme runs them).
    '^@nest-mcp/server$': '<rootDir>/libs/mcp/src/index.ts',
    '^@app/mcp/(.*)\\.js$': '<rootDir>/libs/mcp/src/$1.ts',
    '^@nest-mcp/server/backend$': '<rootDir>/libs/mcp/src/backend/index.ts',
    '^@nest-mcp/server/testing$': '<rootDir>/libs/mcp/src/testing/index.ts',
    '^@nest-mcp/redis$': '<rootDir>/libs/mcp-redis/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }],
  },
};

/** The e2e specs that drive the reference gateway (startGateway), run again on Redis. */
const REDIS_E2E = [
  'apps-browser',
  'notes',
  'notes-export',
  'runtime-resources',
  'sdk-client',
  'subscriptions',
  'subscriptions-lifecycle',
  'subscriptions-sdk',
  'subscriptions-streams',
  'template-exists',
];

/**
 * The e2e specs of the HTTP transports (both mounts, the legacy HTTP+SSE transport, WebSocket,
 * authorization, body limits, shutdown) and of the official SDK clients, run again on Nest's
 * Fastify platform: the transports behave alike on both platforms.
 */
const FASTIFY_E2E = [
  'auth-http',
  'auth-metadata',
  'auth-sdk',
  'auth-ws-sse',
  'client-requests',
  'cross-transport',
  'enhancers',
  'http-bad-input',
  'http-body-limit',
  'http-direct-mount',
  'http-resumption',
  'http-streaming',
  'http-transport',
  'json-only-client',
  'legacy-sse',
  'sdk-client',
  'sdk-v2-mixed-eras',
  'shutdown-drain',
  'transport-errors',
  'ws',
];

export default {
  // Jest reads testTimeout from the root of a multi-project run, not from each project: without
  // it here, every project kept the 5 s default.
  testTimeout: shared.testTimeout,
  // On two cores Jest would run every file in its own process, one after the other, and the
  // module registries of ESM test files are never freed there: past ~150 files the heap reached
  // its limit and the run died. With a limit, files run in a worker that is replaced once it
  // holds more than this after a file (same one-at-a-time order on two cores).
  workerIdleMemoryLimit: '1GB',
  projects: [
    {
      ...shared,
      displayName: 'unit',
      rootDir: '.',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-env.ts'],
    },
    // The gateway's e2e scenarios again, on Redis (one instance): the backends behave alike.
    {
      ...shared,
      displayName: 'e2e-redis',
      rootDir: '.',
      testMatch: REDIS_E2E.map((name) => `<rootDir>/test/e2e/${name}.e2e-spec.ts`),
      globalSetup: '<rootDir>/test/support/redis-global-setup.mjs',
      setupFiles: ['<rootDir>/test/support/redis-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-env.ts'],
      globalTeardown: '<rootDir>/test/support/redis-global-teardown.mjs',
    },
    // The transports' scenarios again, on Fastify (test/support/http-platform.ts).
    {
      ...shared,
      displayName: 'e2e-fastify',
      rootDir: '.',
      testMatch: FASTIFY_E2E.map((name) => `<rootDir>/test/e2e/${name}.e2e-spec.ts`),
      setupFiles: ['<rootDir>/test/support/fastify-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/e2e-env.ts'],
    },
    // Three gateway processes on Redis behind a round-robin proxy: the legacy subscription
    // scenarios unchanged, plus routing and faults.
    {
      ...shared,
      displayName: 'e2e-cluster',
      rootDir: '.',
      testMatch: [
        '<rootDir>/test/e2e/subscriptions.e2e-spec.ts',
        '<rootDir>/test/e2e/subscriptions-sdk.e2e-spec.ts',
        '<rootDir>/test/cluster/**/*.cluster-spec.ts',
      ],
      setupFilesAfterEnv: ['<rootDir>/test/support/cluster-env.ts'],
    },
    // The same three gateway processes on a Redis Cluster (three masters with a replica each,
    // started by the global setup): the legacy subscription scenarios and the three-instance
    // acceptance (kill -9 of an instance, tasks and skills across instances) unchanged.
    {
      ...shared,
      displayName: 'e2e-redis-cluster',
      rootDir: '.',
      testMatch: [
        '<rootDir>/test/e2e/subscriptions.e2e-spec.ts',
        '<rootDir>/test/e2e/subscriptions-sdk.e2e-spec.ts',
        '<rootDir>/test/cluster/**/*.cluster-spec.ts',
      ],
      globalSetup: '<rootDir>/test/support/redis-cluster-global-setup.mjs',
      setupFiles: ['<rootDir>/test/support/redis-cluster-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/cluster-env.ts'],
      globalTeardown: '<rootDir>/test/support/redis-cluster-global-teardown.mjs',
    },
  ],
};
