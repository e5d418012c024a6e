import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { InMemorySkillStore } from '../../backend/in-memory/in-memory-skill.store.js';
import type { McpInstanceMessageHandler, McpInstanceMessaging } from '../../backend/mcp-instance-messaging.js';
import type { McpSkillStore, McpStoredSkill } from '../../backend/mcp-skill.store.js';
import { McpBackendUnavailableError } from '../../backend/mcp-backend.interface.js';
import type { ResolvedMcpOptions } from '../../interfaces/mcp-module-options.interface.js';
import { buildRuntimeSkill, namespacePathProblem } from './runtime-skill.js';
import { RuntimeSkills, SKILLS_CATCH_UP_RETRY_MS } from './runtime-skills.js';

/** Instances whose broadcasts reach each other at once (in process). */
class Bus {
  private readonly members: { id: string; handlers: Map<string, McpInstanceMessageHandler> }[] = [];

  join(id: string): McpInstanceMessaging {
    const handlers = new Map<string, McpInstanceMessageHandler>();
    this.members.push({ id, handlers });
    return {
      instanceId: id,
      on: (topic, handler) => void handlers.set(topic, handler),
      send: (target, topic, payload) => {
        for (const member of this.members) {
          if (member.id !== id && (target === '*' || target === member.id)) member.handlers.get(topic)?.(payload, id);
        }
      },
    };
  }
}

const limits = { maxRuntimeSkills: 2, maxFilesPerSkill: 4, maxBytesPerSkill: 1_000 };
const optionsWith = (skills: Partial<typeof limits> = {}) =>
  ({ skills: { ...limits, ...skills } }) as unknown as ResolvedMcpOptions;

const encoder = new TextEncoder();
const stored = (name: string, body = ''): McpStoredSkill => ({
  path: `team/${name}`,
  files: [{ path: 'SKILL.md', bytes: encoder.encode(`---\nname: ${name}\ndescription: d\n---\n${body}`) }],
});
const built = (skill: McpStoredSkill) => buildRuntimeSkill(skill, limits, 'test');

function instance(bus: Bus, id: string, store: McpSkillStore, options = optionsWith()) {
  const skills = new RuntimeSkills(options, store, bus.join(id));
  const changed = jest.fn();
  skills.onChange(changed);
  return { skills, changed };
}

describe('RuntimeSkills', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('serves a skill put on one instance on the others, and a removal on any removes it everywhere', async () => {
    const bus = new Bus();
    const store = new InMemorySkillStore();
    const a = instance(bus, 'a', store);
    const b = instance(bus, 'b', store);

    await a.skills.put(stored('refunds'), built(stored('refunds')));
    await b.skills.catchUp();

    expect([...b.skills.skills().keys()]).toEqual(['team/refunds']);
    expect(b.skills.skills().get('team/refunds')!.skill.uri).toBe('skill://team/refunds/SKILL.md');
    expect(a.changed).toHaveBeenCalledTimes(1);
    expect(b.changed).toHaveBeenCalledTimes(1);

    expect(await b.skills.remove('team/refunds')).toBe(true);
    await a.skills.catchUp();
    expect(a.skills.skills().size).toBe(0);
    expect(await a.skills.remove('team/refunds')).toBe(false);
  });

  it('an instance fetches only the skills whose version changed', async () => {
    const bus = new Bus();
    const store = new InMemorySkillStore();
    const get = jest.spyOn(store, 'get');
    const a = instance(bus, 'a', store);
    const b = instance(bus, 'b', store);
    await a.skills.put(stored('one'), built(stored('one')));
    await b.skills.catchUp();
    await a.skills.put(stored('two'), built(stored('two')));
    await b.skills.catchUp();

    expect(get.mock.calls).toEqual([[['team/one']], [['team/two']]]);
    expect([...b.skills.skills().keys()].sort()).toEqual(['team/one', 'team/two']);
  });

  it('refuses a new skill past maxRuntimeSkills, changing nothing; a replacement still goes', async () => {
    const store = new InMemorySkillStore();
    const { skills, changed } = instance(new Bus(), 'a', store);
    await skills.put(stored('one'), built(stored('one')));
    await skills.put(stored('two'), built(stored('two')));

    await expect(skills.put(stored('three'), built(stored('three')))).rejects.toThrow(
      "McpSkills.register('team/three'): 2 skills are registered, as many as skills.maxRuntimeSkills allows",
    );
    expect(changed).toHaveBeenCalledTimes(2);
    await skills.put(stored('two', 'v2'), built(stored('two', 'v2')));
    expect(changed).toHaveBeenCalledTimes(3);
  });

  it('leaves out a stored skill that breaks its own limits, with the others served', async () => {
    const bus = new Bus();
    const store = new InMemorySkillStore();
    const a = instance(bus, 'a', store);
    const small = instance(bus, 'small', store, optionsWith({ maxBytesPerSkill: 60 }));
    await a.skills.put(stored('big', 'x'.repeat(100)), built(stored('big', 'x'.repeat(100))));
    await a.skills.put(stored('tiny'), built(stored('tiny')));
    await small.skills.catchUp();

    expect([...small.skills.skills().keys()]).toEqual(['team/tiny']);
  });

  it('a catch-up that fails is tried again until the store answers', async () => {
    jest.useFakeTimers();
    const store = new InMemorySkillStore();
    await store.put(stored('refunds'), 10);
    const versions = jest
      .spyOn(store, 'versions')
      .mockRejectedValueOnce(new McpBackendUnavailableError('down'))
      .mockRejectedValueOnce(new McpBackendUnavailableError('still down'));
    const { skills } = instance(new Bus(), 'a', store);

    await skills.onApplicationBootstrap();
    expect(skills.skills().size).toBe(0);
    await jest.advanceTimersByTimeAsync(SKILLS_CATCH_UP_RETRY_MS);
    expect(skills.skills().size).toBe(0);
    await jest.advanceTimersByTimeAsync(SKILLS_CATCH_UP_RETRY_MS);

    expect([...skills.skills().keys()]).toEqual(['team/refunds']);
    expect(versions).toHaveBeenCalledTimes(3);
    skills.onApplicationShutdown();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('after shutdown, a failed catch-up leaves no timer behind', async () => {
    jest.useFakeTimers();
    const store = new InMemorySkillStore();
    jest.spyOn(store, 'versions').mockRejectedValue(new McpBackendUnavailableError('down'));
    const { skills } = instance(new Bus(), 'a', store);
    await skills.catchUp();
    expect(jest.getTimerCount()).toBe(1);
    skills.onApplicationShutdown();
    expect(jest.getTimerCount()).toBe(0);
    await skills.catchUp();
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('namespacePathProblem', () => {
  it.each([
    ['a name', 'notes'],
    ['a nested path', 'acme/billing/refunds'],
    ['a space', 'references/guide v2.md'],
    ['512 characters', 'a'.repeat(512)],
  ])('accepts %s', (_case, path) => {
    expect(namespacePathProblem(path)).toBeUndefined();
  });

  it.each([
    ['', 'is not a non-empty string'],
    ['x'.repeat(513), 'is longer than 512 characters'],
    ['a//b', 'has an empty segment'],
    ['/a', 'has an empty segment'],
    ['a/', 'has an empty segment'],
    ['a/../b', 'has an empty segment'],
    ['./a', 'has an empty segment'],
    ['a/.hidden', 'has an empty segment'],
    ['a\\b', 'holds a backslash or a control character'],
    ['a\nb', 'holds a backslash or a control character'],
  ])('refuses %j', (path, problem) => {
    expect(namespacePathProblem(path)).toContain(problem);
  });
});
