import { describe, expect, it, jest } from '@jest/globals';
import type { McpBackend, McpBackendParts } from '../backend/mcp-backend.interface.js';
import { deploymentOf } from './backend-deployment.js';

/** A backend whose instances start when the test says so, and record their close. */
function gatedBackend() {
  const closed: string[] = [];
  const gates: Array<() => void> = [];
  let n = 0;
  const make = (): McpBackend => {
    const id = `i${++n}`;
    return {
      connect: () =>
        new Promise<McpBackendParts>((resolve) => {
          gates.push(() =>
            resolve({
              liveStreams: { drain: () => Promise.resolve() },
              postStreams: { drain: () => Promise.resolve() },
              close: jest.fn(async () => void closed.push(id)),
            } as unknown as McpBackendParts),
          );
        }),
    };
  };
  return { make, closed, open: (i: number) => gates[i]() };
}

describe('deploymentOf', () => {
  it('closes an instance that was still starting when the deployment closed', async () => {
    const backend = gatedBackend();
    const deployment = deploymentOf(backend.make);
    const first = deployment.instance();
    backend.open(0);
    await first;
    const starting = deployment.instance();
    const closing = deployment.close();
    backend.open(1);
    await starting;
    await closing;
    expect(backend.closed.sort()).toEqual(['i1', 'i2']);
  });

  it('closes every instance even when one fails to close, then reports the failure', async () => {
    const closed: string[] = [];
    let n = 0;
    const deployment = deploymentOf(() => {
      const id = `i${++n}`;
      return {
        connect: async () =>
          ({
            liveStreams: { drain: () => Promise.resolve() },
            postStreams: { drain: () => Promise.resolve() },
            close: async () => {
              if (id === 'i1') throw new Error('close failed');
              closed.push(id);
            },
          }) as unknown as McpBackendParts,
      };
    });
    await deployment.instance();
    await deployment.instance();
    await expect(deployment.close()).rejects.toThrow('close failed');
    expect(closed).toEqual(['i2']);
  });
});
