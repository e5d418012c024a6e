// setupFiles of the e2e-redis-cluster project: this test file's gateway processes run on the
// Redis Cluster of redis-cluster-global-setup.mjs (startGatewayCluster reads it).
process.env.MCP_E2E_REDIS_CLUSTER_NODES = process.env.MCP_E2E_REDIS_CLUSTER_SEEDS;
