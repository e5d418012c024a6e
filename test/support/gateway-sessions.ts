import { afterAll, afterEach, beforeAll, expect } from '@jest/globals';
import { ResourceNotificationService } from '@app/mcp';
import { startGateway, type RunningGateway } from './gateway-app.js';
import { openSession, rawRequest } from './raw-http.js';
import { rawSession, type RawSession, type SseClient } from './sse-client.js';

/** One gateway for a describe block, with its sessions and streams tidied after each test. */
export interface GatewaySessions {
  readonly gateway: RunningGateway;
  readonly notifier: ResourceNotificationService;
  /** An initialized session, ended (DELETE) after the test. */
  newSession(): Promise<RawSession>;
  /** The session's GET stream (200 `text/event-stream`), closed after the test. */
  openStream(session: RawSession, lastEventId?: string): Promise<SseClient>;
}

/**
 * Registers the hooks of a describe block that drives the reference gateway over raw HTTP:
 * start it once, close every stream and end every session after each test (so no
 * subscription leaks into the next test's counts), close it at the end.
 */
export function useGatewaySessions(env: Record<string, string> = {}): GatewaySessions {
  let gateway: RunningGateway | undefined;
  let notifier: ResourceNotificationService | undefined;
  const streams = new Set<SseClient>();
  const sessions = new Set<RawSession>();

  beforeAll(async () => {
    gateway = await startGateway(env);
    notifier = gateway.app.get(ResourceNotificationService);
  });

  afterEach(async () => {
    for (const stream of streams) stream.close();
    streams.clear();
    const endpoint = gateway!.endpoint;
    await Promise.all([...sessions].map((session) => rawRequest(endpoint, 'DELETE', session.headers)));
    sessions.clear();
  });

  afterAll(async () => {
    await gateway?.close();
  });

  return {
    get gateway() {
      return gateway!;
    },
    get notifier() {
      return notifier!;
    },
    async newSession() {
      const session = rawSession(gateway!.endpoint, await openSession(gateway!.endpoint));
      sessions.add(session);
      return session;
    },
    async openStream(session, lastEventId) {
      const stream = await session.openStream(lastEventId === undefined ? {} : { lastEventId });
      streams.add(stream);
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      return stream;
    },
  };
}
