import { createServer } from 'node:net';

/**
 * A TCP port that is free on 127.0.0.1 right now (the probe listener is closed before the port
 * is used). For servers whose port must be known before they start: a Redis server, a token
 * audience that names the MCP server's URI.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
