import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MCP_INSTANCE_MESSAGING, MCP_SKILL_STORE } from '../../backend/mcp-backend.tokens.js';
import { MCP_ALL_INSTANCES, type McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import type { McpSkillStore, McpStoredSkill } from '../../backend/mcp-skill.store.js';
import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { McpLogger } from '../../logging/mcp-logger.js';
import type { Skill } from './skill-catalog.js';
import { buildRuntimeSkill } from './runtime-skill.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** The topic that tells the other instances the store of runtime skills changed. */
const SKILLS_CHANGED = 'skills-changed';

/** Skills read from the store per call while catching up: a bound on one reply's size. */
const SKILLS_PER_READ = 8;

/** How long after a failed catch-up (the store unreachable) the next one is tried. */
export const SKILLS_CATCH_UP_RETRY_MS = 5_000;

/** A runtime skill served here: as the store has it, checked and built. */
export interface HeldSkill {
  readonly version: number;
  readonly skill: Skill;
  readonly requiredScopes?: readonly string[];
}

/**
 * The skills registered at runtime, as this instance serves them: a copy of the backend's skill
 * store (`McpSkillStore`), which every instance shares. A change made here goes to the store
 * first (refused there when it is full) and is then served here at once; the other instances
 * hear of it (`skills-changed`) and catch up: they read the versions of every stored skill and
 * fetch the skills whose version differs, so a change moves that skill's bytes only. An instance
 * catches up the same way when it starts. Changes and catch-ups run one at a time, so each sees
 * the store as the one before left it.
 *
 * A catch-up that fails (the store cannot be reached, at startup too) is tried again every
 * `SKILLS_CATCH_UP_RETRY_MS` until one succeeds. A message lost between instances (best effort)
 * leaves one behind until the next change reaches it; a skill another instance stored that does
 * not pass the checks here (other limits) is left out, with a warning.
 */
@Injectable()
export class RuntimeSkills implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new McpLogger('McpSkills');
  private readonly held = new Map<string, HeldSkill>();
  /** The change or catch-up running, and those queued behind it. */
  private queue: Promise<unknown> = Promise.resolve();
  /** A catch-up is queued and has not started: more news joins it. */
  private catchUpQueued = false;
  private changed: () => void = () => undefined;
  /** The retry of a failed catch-up, while one is due. */
  private retry?: NodeJS.Timeout;
  private closed = false;

  constructor(
    @McpOptions('skills') private readonly options: McpOptionGroup<'skills'>,
    @Inject(MCP_SKILL_STORE) private readonly store: McpSkillStore,
    @Inject(MCP_INSTANCE_MESSAGING) private readonly messaging: McpInstanceMessaging,
  ) {
    if (options.skills) messaging.on(SKILLS_CHANGED, () => void this.catchUp());
  }

  /** Serves what the store holds from the start; a store that cannot be reached is caught up with at the next change. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.options.skills) await this.catchUp();
  }

  /** Nothing is caught up after this; a catch-up under way finishes. */
  onApplicationShutdown(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.retry = undefined;
  }

  /** Calls `listener` after each change of the skills served here (once the handler is ready). */
  onChange(listener: () => void): void {
    this.changed = listener;
  }

  /** The runtime skills served here, by path. */
  skills(): ReadonlyMap<string, HeldSkill> {
    return this.held;
  }

  /**
   * Stores `stored` (checked and built as `skill`) for every instance, and serves it here;
   * `check` runs first, in turn with the other changes (it throws to refuse the skill). Rejects with `McpDefinitionError` when `skills.maxRuntimeSkills` skills are stored already,
   * and with `McpBackendUnavailableError` when the store cannot be reached (nothing changed).
   */
  put(stored: McpStoredSkill, skill: Skill, check: () => void = () => undefined): Promise<void> {
    return this.serially(async () => {
      // In turn with the other changes: two registrations at once see each other.
      check();
      const max = this.options.skills!.maxRuntimeSkills;
      const version = await this.store.put(stored, max);
      if (version === undefined) {
        throw new McpDefinitionError(
          `McpSkills.register('${stored.path}'): ${max} skills are registered, as many as ` +
            'skills.maxRuntimeSkills allows: remove one first',
        );
      }
      this.held.set(stored.path, { version, skill, requiredScopes: stored.requiredScopes });
      this.changed();
      this.messaging.send(MCP_ALL_INSTANCES, SKILLS_CHANGED, {});
    });
  }

  /** Removes the skill at `path` everywhere; false when none was registered there. */
  remove(path: string): Promise<boolean> {
    return this.serially(async () => {
      const removed = await this.store.remove(path);
      const held = this.held.delete(path);
      if (held) this.changed();
      if (removed) this.messaging.send(MCP_ALL_INSTANCES, SKILLS_CHANGED, {});
      return removed || held;
    });
  }

  /**
   * Catches up with the store (queued behind the change under way; news that comes meanwhile
   * joins the one queued). Never rejects: a failure is logged, and the next news tries again.
   */
  catchUp(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.catchUpQueued) return this.queue.then(() => undefined);
    this.catchUpQueued = true;
    return this.serially(async () => {
      this.catchUpQueued = false;
      await this.readChanges();
    }).catch((error: unknown) => {
      this.logger.warn(
        `Runtime skills not caught up with the store, the ones held are still served (next try in ` +
          `${SKILLS_CATCH_UP_RETRY_MS} ms): ${String(error)}`,
      );
      this.retryLater();
    });
  }

  private retryLater(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.catchUp();
    }, SKILLS_CATCH_UP_RETRY_MS);
    this.retry.unref();
  }

  private async readChanges(): Promise<void> {
    const versions = await this.store.versions();
    const gone = [...this.held.keys()].filter((path) => !versions.has(path));
    const stale = [...versions].filter(([path, version]) => this.held.get(path)?.version !== version).map(([p]) => p);
    const fetched: [string, HeldSkill | undefined][] = [];
    for (let at = 0; at < stale.length; at += SKILLS_PER_READ) {
      const paths = stale.slice(at, at + SKILLS_PER_READ);
      const stored = await this.store.get(paths);
      paths.forEach((path, index) => fetched.push([path, this.heldOf(stored[index])]));
    }
    // Synchronous from here on: the skills served change at once.
    for (const path of gone) this.held.delete(path);
    for (const [path, held] of fetched) {
      if (held) this.held.set(path, held);
      else this.held.delete(path);
    }
    if (gone.length > 0 || fetched.length > 0) this.changed();
  }

  /** A stored skill checked and built, or undefined (with a warning) when it does not pass here. */
  private heldOf(stored: (McpStoredSkill & { version: number }) | undefined): HeldSkill | undefined {
    if (!stored) return undefined;
    try {
      const skill = buildRuntimeSkill(stored, this.options.skills!, `The runtime skill '${stored.path}'`);
      return { version: stored.version, skill, requiredScopes: stored.requiredScopes };
    } catch (error) {
      this.logger.warn(`${String(error instanceof Error ? error.message : error)}: not served on this instance`);
      return undefined;
    }
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
