// globalSetup of the e2e-redis-cluster project: a Redis Cluster of this run's own (three masters
// with a replica each, redis-cluster.mjs), its seeds named in MCP_E2E_REDIS_CLUSTER_SEEDS;
// stopped by redis-cluster-global-teardown.mjs, and on a failed start by startCluster itself. A
// global setup's environment reaches the workers of every project, so the switch to the cluster
// (MCP_E2E_REDIS_CLUSTER_NODES) is made per test file by redis-cluster-env.ts, in the
// e2e-redis-cluster project only.
import { startCluster } from './redis-cluster.mjs';

export default async function setup() {
  const cluster = await startCluster();
  globalThis.__MCP_E2E_REDIS_CLUSTER__ = cluster;
  process.env.MCP_E2E_REDIS_CLUSTER_SEEDS = cluster.seeds.join(',');
}
