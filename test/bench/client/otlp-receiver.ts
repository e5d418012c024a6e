/**
 * A local OTLP/HTTP receiver in the bench process, for the library fixture's `BENCH_TELEMETRY=sdk`
 * servers: a `node:http` server on 127.0.0.1 (port chosen by the OS) that reads every body to its
 * end and answers 200 (an empty protobuf message is a valid `Export*ServiceResponse`) to POST
 * `/v1/traces` and `/v1/metrics`, counting requests and bytes. Trace exports in protobuf are
 * walked just deep enough to count their spans (resource spans → scope spans → spans, every span
 * skipped by its length), so the report can set the spans received against the requests served.
 * Anything else is answered 404 and counted as rejected.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface OtlpSignalCounts {
  requests: number;
  /** Body bytes as sent (compressed, when the exporter compresses). */
  bytes: number;
}

export interface OtlpCounts {
  traces: OtlpSignalCounts & {
    /** Spans in the protobuf trace exports (undefined once a body was not protobuf). */
    spans?: number;
  };
  metrics: OtlpSignalCounts;
  /** Requests to any other path or method (404). */
  rejected: number;
}

const emptyCounts = (): OtlpCounts => ({
  traces: { requests: 0, bytes: 0, spans: 0 },
  metrics: { requests: 0, bytes: 0 },
  rejected: 0,
});

/** `after - before`, signal by signal. */
export function countsDelta(before: OtlpCounts, after: OtlpCounts): OtlpCounts {
  return {
    traces: {
      requests: after.traces.requests - before.traces.requests,
      bytes: after.traces.bytes - before.traces.bytes,
      spans:
        after.traces.spans === undefined || before.traces.spans === undefined
          ? undefined
          : after.traces.spans - before.traces.spans,
    },
    metrics: {
      requests: after.metrics.requests - before.metrics.requests,
      bytes: after.metrics.bytes - before.metrics.bytes,
    },
    rejected: after.rejected - before.rejected,
  };
}

export class OtlpReceiver {
  private readonly counts = emptyCounts();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => receiver.handle(req, res));
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return receiver;
  }

  /** The base URL to give an exporter (`/v1/traces` and `/v1/metrics` are appended). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A copy of the counts so far. */
  snapshot(): OtlpCounts {
    return { traces: { ...this.counts.traces }, metrics: { ...this.counts.metrics }, rejected: this.counts.rejected };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/v1/metrics')) {
        this.counts.rejected++;
        res.writeHead(404).end();
        return;
      }
      const signal = path === '/v1/traces' ? this.counts.traces : this.counts.metrics;
      signal.requests++;
      signal.bytes += body.length;
      if (signal === this.counts.traces && this.counts.traces.spans !== undefined) {
        const protobuf = /protobuf/.test(req.headers['content-type'] ?? '');
        try {
          const raw = req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
          this.counts.traces.spans = protobuf ? this.counts.traces.spans + countSpans(raw) : undefined;
        } catch {
          this.counts.traces.spans = undefined;
        }
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '0' }).end();
    });
  }
}

/** Reads a base-128 varint at `at`; returns the value and the offset after it. */
function varint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = at; i < buf.length; i++) {
    const byte = buf[i];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, i + 1];
    scale *= 128;
  }
  throw new Error('truncated varint');
}

/** Calls `onField(field, start, end)` for each length-delimited field of the message in `[start, end)`. */
function eachLengthField(
  buf: Buffer,
  start: number,
  end: number,
  onField: (field: number, from: number, to: number) => void,
): void {
  let at = start;
  while (at < end) {
    const [key, afterKey] = varint(buf, at);
    const field = Math.floor(key / 8);
    switch (key & 7) {
      case 0:
        at = varint(buf, afterKey)[1];
        break;
      case 1:
        at = afterKey + 8;
        break;
      case 2: {
        const [length, from] = varint(buf, afterKey);
        onField(field, from, from + length);
        at = from + length;
        break;
      }
      case 5:
        at = afterKey + 4;
        break;
      default:
        throw new Error(`unsupported wire type ${key & 7}`);
    }
  }
  if (at !== end) throw new Error('malformed message');
}

/**
 * Spans in an `ExportTraceServiceRequest`: resource_spans (1) → scope_spans (2) → spans (2).
 */
export function countSpans(buf: Buffer): number {
  let spans = 0;
  eachLengthField(buf, 0, buf.length, (field, from, to) => {
    if (field !== 1) return;
    eachLengthField(buf, from, to, (inner, innerFrom, innerTo) => {
      if (inner !== 2) return;
      eachLengthField(buf, innerFrom, innerTo, (leaf) => {
        if (leaf === 2) spans++;
      });
    });
  });
  return spans;
}
