import type { McpBackend, McpBackendParts } from '../backend/mcp-backend.interface.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { resolveMcpOptions } from '../mcp-options.resolver.js';

/** One deployment of the backend under test: instances started from it share its state. */
export interface BackendDeployment {
  /** Starts one instance (its parts) of the backend with these module options. */
  instance(options?: Partial<McpModuleOptions>): Promise<McpBackendParts>;
  /** Stops every instance and releases what the deployment holds. */
  close(): Promise<void>;
}

/** How to start deployments of a backend, and what it promises. */
export interface BackendUnderTest {
  /** A fresh deployment (fresh state) per test. */
  deploy(): Promise<BackendDeployment>;
  /** Several instances share state (Redis); false for a one-process backend (in-memory). */
  readonly shared: boolean;
}

/**
 * A deployment of a backend built by `McpBackend.connect` for each instance. `close` also waits
 * for the instances still starting and closes them, and closes every instance even when one
 * fails to close: a test that failed (or timed out) while an instance started leaves nothing
 * running, no heartbeat and no connection that would keep the test run from exiting.
 */
export function deploymentOf(makeBackend: () => McpBackend, release?: () => Promise<void>): BackendDeployment {
  const started: McpBackendParts[] = [];
  const starting = new Set<Promise<McpBackendParts>>();
  const stop = async (parts: McpBackendParts): Promise<void> => {
    await parts.liveStreams.drain().catch(() => undefined);
    await parts.postStreams.drain().catch(() => undefined);
    await parts.close?.();
  };
  return {
    async instance(options = {}) {
      const resolved = resolveMcpOptions({ serverInfo: { name: 'contract', version: '1' }, ...options });
      const connecting = Promise.resolve(makeBackend().connect({ options: resolved }));
      starting.add(connecting);
      try {
        const parts = await connecting;
        started.push(parts);
        return parts;
      } finally {
        starting.delete(connecting);
      }
    },
    async close() {
      // Instances that finish starting meanwhile land in `started`, closed below.
      await Promise.allSettled([...starting]);
      const closing = await Promise.allSettled(started.splice(0).map(stop));
      await release?.();
      const failed = closing.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
