import { describeBackendContract, deploymentOf } from '../../testing/backend-contract.js';
import { FaultyMcpBackend } from '../../testing/faulty-backend.js';
import { InMemoryMcpBackend } from './in-memory.backend.js';

describeBackendContract('in-memory', {
  shared: false,
  deploy: async () => deploymentOf(() => new InMemoryMcpBackend()),
});

describeBackendContract('in-memory behind 2 ms of latency per call', {
  shared: false,
  deploy: async () =>
    deploymentOf(() => {
      const slow = new FaultyMcpBackend(new InMemoryMcpBackend());
      slow.faults.latencyMs = 2;
      return slow;
    }),
});
