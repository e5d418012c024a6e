/**
 * A lean SSE client for thousands of GET streams in one process: one dedicated connection per
 * stream (`agent: false`), events parsed as they arrive, and per stream only counters and the
 * arrival time of the first `resources/updated`.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface StreamCounters {
  /** `notifications/resources/updated` for the watched URI. */
  updated: number;
  /** `notifications/resources/updated` for any other URI. */
  otherUpdated: number;
  /** `notifications/resources/list_changed` (the bench's barrier). */
  listChanged: number;
  /** `notifications/subscriptions/acknowledged` (the first event of a `subscriptions/listen`). */
  acknowledged: number;
  /** Events whose data was not a JSON-RPC notification. */
  unexpected: number;
  /** performance.now() at each `updated`, in order. */
  updatedAt: number[];
}

export interface WatchedStream {
  readonly counters: StreamCounters;
  readonly ended: boolean;
  close(): void;
}

/** Aggregates many streams and resolves waits on their totals. */
export class StreamSet {
  readonly streams: WatchedStream[] = [];
  private waiters: Array<{ check: () => boolean; resolve: () => void }> = [];
  totalUpdated = 0;
  /** `streamsWith[k]`: streams that got at least k `updated` for the URI. */
  readonly streamsWith: number[] = [];
  totalListChanged = 0;
  totalAcknowledged = 0;
  endedEarly = 0;

  constructor(readonly uri: string) {}

  /**
   * Opens `GET endpoint` as an SSE stream, or with `body` a POST whose answer is a stream (a
   * modern `subscriptions/listen`); resolves when the 200 headers arrive.
   */
  open(endpoint: string, headers: Record<string, string>, timeoutMs = 30_000, body?: string): Promise<WatchedStream> {
    return new Promise((resolve, reject) => {
      const counters: StreamCounters = {
        updated: 0,
        otherUpdated: 0,
        listChanged: 0,
        acknowledged: 0,
        unexpected: 0,
        updatedAt: [],
      };
      let ended = false;
      const what = body === undefined ? 'GET stream' : 'POST stream';
      const req = http.request(endpoint, {
        method: body === undefined ? 'GET' : 'POST',
        agent: false,
        headers:
          body === undefined
            ? { accept: 'text/event-stream', ...headers }
            : {
                accept: 'application/json, text/event-stream',
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(body),
                ...headers,
              },
      });
      const timer = setTimeout(() => req.destroy(new Error(`${what}: no headers in ${timeoutMs} ms`)), timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        ended = true;
        reject(new Error(`${what}: ${error.message}${error.code ? ` (${error.code})` : ''}`));
      });
      req.on('response', (res) => {
        clearTimeout(timer);
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`${what} answered HTTP ${res.statusCode}`));
          return;
        }
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            this.onEvent(buffer.slice(0, end), counters);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf('\n\n');
          }
        });
        const onEnd = () => {
          if (!ended) this.endedEarly++;
          ended = true;
        };
        res.on('end', onEnd);
        res.on('error', onEnd);
        res.on('close', onEnd);
        const stream: WatchedStream = {
          counters,
          get ended() {
            return ended;
          },
          close: () => {
            ended = true;
            req.destroy();
          },
        };
        this.streams.push(stream);
        resolve(stream);
      });
      req.end(body);
    });
  }

  private onEvent(block: string, counters: StreamCounters): void {
    let data = '';
    for (const raw of block.split('\n')) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.startsWith('data:')) data += line.slice(line.startsWith('data: ') ? 6 : 5);
    }
    if (!data) return; // comments, keep-alives, priming events
    let message: any;
    try {
      message = JSON.parse(data);
    } catch {
      counters.unexpected++;
      return;
    }
    if (message?.method === 'notifications/resources/updated') {
      if (message.params?.uri === this.uri) {
        counters.updated++;
        if (counters.updatedAt.length < 64) counters.updatedAt.push(performance.now());
        this.streamsWith[counters.updated] = (this.streamsWith[counters.updated] ?? 0) + 1;
        this.totalUpdated++;
      } else {
        counters.otherUpdated++;
      }
    } else if (message?.method === 'notifications/resources/list_changed') {
      counters.listChanged++;
      this.totalListChanged++;
    } else if (message?.method === 'notifications/subscriptions/acknowledged') {
      counters.acknowledged++;
      this.totalAcknowledged++;
    } else {
      counters.unexpected++;
    }
    if (this.waiters.length > 0) this.settleWaiters();
  }

  private settleWaiters(): void {
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.check()) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Resolves once `check()` holds (checked on every event); false after `timeoutMs`. */
  waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
    if (check()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.waiters.push(waiter);
    });
  }

  closeAll(): void {
    for (const stream of this.streams) stream.close();
  }
}
