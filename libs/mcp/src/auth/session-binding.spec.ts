/**
 * The session↔principal binding at the session manager, through a store that keeps records as
 * JSON (as a shared store such as Redis does): the binding is plain data in the record, checked
 * where the session is resolved.
 */
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { afterEach, describe, expect, it } from '@jest/globals';
import { InMemoryMcpBackend } from '../backend/in-memory/in-memory.backend.js';
import type { McpSessionRecord, McpSessionStore } from '../backend/mcp-session.store.js';
import { resolveMcpOptions } from '../mcp-options.resolver.js';
import { McpSessionManager } from '../session/mcp-session.manager.js';
import { principalBinding, type McpPrincipal } from '../model/mcp-principal.js';
import { callerKeyOf } from './caller-key.js';

const principal = (clientId: string, scopes: string[] = []): McpPrincipal => ({
  issuer: 'https://as.example.com',
  subject: clientId,
  clientId,
  scopes,
  audience: ['https://mcp.example.com/mcp'],
  claims: {},
});

/** A store that serializes every record on the way in and out. */
function serializing(store: McpSessionStore): McpSessionStore {
  const roundTrip = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));
  return {
    create: (record, limit) => store.create(roundTrip(record), limit),
    access: async (id, now, idle, principal) => roundTrip(await store.access(id, now, idle, roundTrip(principal))),
    update: (id, patch) => store.update(id, patch),
    touch: (ids, now) => store.touch(ids, now),
    end: (id, reason) => store.end(id, reason),
    expireIdle: (cutoff) => store.expireIdle(cutoff),
    count: () => store.count(),
    onEnded: (listener) => store.onEnded(listener),
  };
}

describe('sessions bound to their principal', () => {
  let manager: McpSessionManager | undefined;

  afterEach(async () => {
    manager?.onApplicationShutdown();
  });

  const start = (maxSessionsPerPrincipal?: number) => {
    const options = resolveMcpOptions({
      serverInfo: { name: 't', version: '1' },
      sessions: { maxPerCaller: maxSessionsPerPrincipal },
    });
    const parts = new InMemoryMcpBackend().connect({ options });
    manager = new McpSessionManager(serializing(parts.sessions), parts.liveStreams, options, new McpTelemetry());
    manager.onModuleInit();
    return manager;
  };

  const create = (sessions: McpSessionManager, owner: McpPrincipal): Promise<McpSessionRecord> =>
    sessions.create(
      { protocolVersion: '2025-11-25', transport: 'streamable-http', principal: principalBinding(owner) },
      callerKeyOf(owner, undefined),
    );

  it('finds a session for its principal, with any scopes, and for no one else', async () => {
    const sessions = start();
    const session = await create(sessions, principal('alice'));
    expect((await sessions.resolve(session.id, principal('alice', ['notes:write'])))?.principal).toEqual({
      issuer: 'https://as.example.com',
      subject: 'alice',
      clientId: 'alice',
    });
    expect(await sessions.resolve(session.id, principal('bob'))).toBeUndefined();
    expect(await sessions.resolve(session.id, undefined)).toBeUndefined();
    // A foreign lookup ends nothing.
    expect(await sessions.resolve(session.id, principal('alice'))).toBeDefined();
  });

  it('caps the sessions of one principal and gives the place back when one ends', async () => {
    const sessions = start(1);
    const first = await create(sessions, principal('alice'));
    await expect(create(sessions, principal('alice'))).rejects.toMatchObject({ capacity: 'sessionsPerCaller' });
    await expect(create(sessions, principal('bob'))).resolves.toBeDefined();
    await sessions.end(first.id, 'deleted');
    await expect(create(sessions, principal('alice'))).resolves.toBeDefined();
  });
});
