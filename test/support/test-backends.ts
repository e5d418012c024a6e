/**
 * In-memory backends whose session store can be held at a gate, the way a shared store (Redis)
 * takes its time: the races ("session end against work in flight", the session cap)
 * show only when a store call is not instant. Pass one as `McpModule.forRoot({ backend })`.
 */
import {
  InMemoryMcpBackend,
  McpBackendUnavailableError,
  type McpBackend,
  type McpBackendContext,
  type McpBackendParts,
  type McpSessionStore,
} from '@nest-mcp/server/backend';
import { Gate } from '../fixtures/gates.js';

/**
 * The in-memory backend, except that every `create` (the cap's check and the new session's
 * write, one atomic store call) first waits at a gate: the test lets every `initialize` reach
 * the store before any of them proceeds, the worst interleaving a shared store can see.
 */
export class GatedCreateBackend implements McpBackend {
  readonly creates = new Gate();

  connect(context: McpBackendContext): McpBackendParts {
    const parts = new InMemoryMcpBackend().connect(context);
    const sessions: McpSessionStore = parts.sessions;
    const create = sessions.create.bind(sessions);
    sessions.create = async (...args) => {
      await this.creates.pass();
      return create(...args);
    };
    return parts;
  }
}

/**
 * The in-memory backend, except that a lookup (`access`) can be held: it finds the session,
 * then waits at a gate before answering, so the test can end the session in between.
 */
export class GatedLookupBackend implements McpBackend {
  private held?: Gate;

  /** The next lookup waits, after finding its session, at the returned gate. */
  holdNextLookup(): Gate {
    return (this.held = new Gate());
  }

  connect(context: McpBackendContext): McpBackendParts {
    const parts = new InMemoryMcpBackend().connect(context);
    const sessions: McpSessionStore = parts.sessions;
    const access = sessions.access.bind(sessions);
    sessions.access = async (...args) => {
      const gate = this.held;
      this.held = undefined;
      const record = await access(...args);
      await gate?.pass();
      return record;
    };
    return parts;
  }
}

/** The in-memory backend, whose session lookups fail as an unreachable store's do while `down`. */
export class OutageBackend implements McpBackend {
  down = false;

  connect(context: McpBackendContext): McpBackendParts {
    const parts = new InMemoryMcpBackend().connect(context);
    const sessions: McpSessionStore = parts.sessions;
    const access = sessions.access.bind(sessions);
    sessions.access = async (...args) => {
      if (this.down) throw new McpBackendUnavailableError('connect ECONNREFUSED 127.0.0.1:6379');
      return access(...args);
    };
    return parts;
  }
}
