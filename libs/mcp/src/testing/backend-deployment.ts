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

/** A deployment of a backend built by `McpBackend.connect` for each instance. */
export function deploymentOf(makeBackend: () => McpBackend, release?: () => Promise<void>): BackendDeployment {
  const started: McpBackendParts[] = [];
  return {
    async instance(options = {}) {
      const resolved = resolveMcpOptions({ serverInfo: { name: 'contract', version: '1' }, ...options });
      const parts = await makeBackend().connect({ options: resolved });
      started.push(parts);
      return parts;
    },
    async close() {
      for (const parts of started.splice(0)) {
        await parts.liveStreams.drain().catch(() => undefined);
        await parts.postStreams.drain().catch(() => undefined);
        await parts.close?.();
      }
      await release?.();
    },
  };
}
