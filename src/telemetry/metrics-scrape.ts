import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a scrape needs of the Prometheus reader: a collection, and its text format. */
export interface ScrapeSource {
  collect(): Promise<{ resourceMetrics: unknown; errors: unknown[] }>;
  serialize(resourceMetrics: unknown): string;
}

/**
 * Answers a Prometheus scrape. Unlike the exporter's own handler, a collection or serialization
 * that fails (a text past the engine's longest string, say) answers 500 and is reported through
 * `onFailure`: it never becomes an unhandled rejection that ends the process.
 */
export function scrapeHandler(
  source: ScrapeSource,
  onFailure: (error: unknown) => void,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    let text: string;
    try {
      const { resourceMetrics } = await source.collect();
      text = source.serialize(resourceMetrics);
    } catch (error) {
      onFailure(error);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end('# the metrics could not be collected\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : text);
  };
}

/**
 * True when the request carries `Authorization: Bearer <token>`. Compared through SHA-256 digests
 * with `timingSafeEqual`: equal lengths whatever was sent, so neither the token's length nor its
 * content leaks through the time the comparison takes.
 */
export function hasScrapeToken(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer[ ]+(\S+)[ ]*$/i.exec(header) : null;
  if (!match) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]), digest(token));
}
