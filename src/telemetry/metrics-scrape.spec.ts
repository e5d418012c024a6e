import { describe, expect, it } from '@jest/globals';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasScrapeToken, scrapeHandler, type ScrapeSource } from './metrics-scrape.js';

/** Serves `handler` on a free port for the length of `work`. */
async function serving(
  handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>,
  work: (port: number) => Promise<void>,
): Promise<void> {
  const server: Server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await work((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function get(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/metrics' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the gateway scrape handler', () => {
  it('answers the serialized metrics', async () => {
    const source: ScrapeSource = {
      collect: async () => ({ resourceMetrics: {}, errors: [] }),
      serialize: () => '# TYPE up gauge\nup 1\n',
    };
    await serving(
      scrapeHandler(source, () => undefined),
      async (port) => {
        expect(await get(port)).toEqual({ status: 200, body: '# TYPE up gauge\nup 1\n' });
      },
    );
  });

  it('answers 500 when serializing fails (a text past the longest string), and reports it; nothing is left unhandled', async () => {
    const failures: unknown[] = [];
    const source: ScrapeSource = {
      collect: async () => ({ resourceMetrics: {}, errors: [] }),
      serialize: () => {
        throw new RangeError('Invalid string length');
      },
    };
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await serving(
        scrapeHandler(source, (error) => failures.push(error)),
        async (port) => {
          const answer = await get(port);
          expect(answer.status).toBe(500);
        },
      );
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(failures).toEqual([expect.any(RangeError)]);
    expect(unhandled).toEqual([]);
  });

  it('answers 500 when the collection rejects', async () => {
    const source: ScrapeSource = {
      collect: () => Promise.reject(new Error('collection timed out')),
      serialize: () => '',
    };
    await serving(
      scrapeHandler(source, () => undefined),
      async (port) => {
        expect((await get(port)).status).toBe(500);
      },
    );
  });
});

describe('hasScrapeToken', () => {
  const TOKEN = 'a-scrape-secret-of-32-characters';
  const withAuthorization = (authorization?: string) =>
    ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

  it.each([
    [`Bearer ${TOKEN}`, true],
    [`bearer ${TOKEN}`, true],
    [undefined, false],
    ['Bearer ', false],
    [`Bearer ${TOKEN}x`, false],
    [`Bearer ${TOKEN.slice(1)}`, false],
    [`Basic ${TOKEN}`, false],
    [TOKEN, false],
  ])('Authorization %p → %p', (authorization, expected) => {
    expect(hasScrapeToken(withAuthorization(authorization), TOKEN)).toBe(expected);
  });
});
