/**
 * The contract of a backend's store of runtime skills (`McpBackendParts.skills`), run by
 * `describeBackendContract` for every backend: what is put comes back byte for byte with a
 * version that grows, the bound on the number of skills (atomic, also between instances), and
 * removal; with a shared backend, every instance sees what one stored. Written with Jest's globals.
 */
import { randomBytes } from 'node:crypto';
import type { McpBackendParts } from '../backend/mcp-backend.interface.js';
import type { McpSkillStore, McpStoredSkill } from '../backend/mcp-skill.store.js';
import type { BackendDeployment, BackendUnderTest } from './backend-deployment.js';

/** The skill store of an instance: every backend the contract checks has one. */
function skillsOf(parts: McpBackendParts): McpSkillStore {
  expect(parts.skills).toBeDefined();
  return parts.skills!;
}

const encoder = new TextEncoder();

/** A stored skill at a fresh path (under `prefix`), with a text and a binary file. */
export function storedSkill(prefix = 'acme', overrides: Partial<McpStoredSkill> = {}): McpStoredSkill {
  const name = `s${randomBytes(4).toString('hex')}`;
  return {
    path: `${prefix}/${name}`,
    files: [
      { path: 'SKILL.md', bytes: encoder.encode(`---\nname: ${name}\ndescription: A skill.\n---\n# ${name}\n`) },
      { path: 'assets/logo.png', bytes: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 255, 10, 13]) },
    ],
    ...overrides,
  };
}

/** Declares the skill store's part of the contract (inside `describeBackendContract`). */
export function describeSkillStoreContract(subject: BackendUnderTest, deploy: () => Promise<BackendDeployment>): void {
  describe('runtime skills (McpSkillStore)', () => {
    const single = async () => skillsOf(await (await deploy()).instance());

    it('gives back what was put, every byte and scope, with its version; an unknown path is undefined', async () => {
      const skills = await single();
      const skill = storedSkill('acme', { requiredScopes: ['skills:read', 'billing'] });
      const version = await skills.put(skill, 10);
      expect(version).toEqual(expect.any(Number));
      const [found, unknown] = await skills.get([skill.path, 'acme/none']);
      expect(unknown).toBeUndefined();
      expect(found).toMatchObject({ path: skill.path, version, requiredScopes: ['skills:read', 'billing'] });
      expect(found!.files.map((file) => [file.path, [...file.bytes]])).toEqual(
        skill.files.map((file) => [file.path, [...file.bytes]]),
      );
      expect(await skills.versions()).toEqual(new Map([[skill.path, version]]));
    });

    it('keeps its own copy: the caller reusing its buffers changes nothing stored', async () => {
      const skills = await single();
      const skill = storedSkill();
      await skills.put(skill, 10);
      skill.files[1].bytes[0] = 0;
      const [found] = await skills.get([skill.path]);
      expect(found!.files[1].bytes[0]).toBe(0x89);
    });

    it('gives a greater version at each put, a replacement included', async () => {
      const skills = await single();
      const [a, b] = [storedSkill(), storedSkill()];
      const first = (await skills.put(a, 10))!;
      const second = (await skills.put(b, 10))!;
      const replaced = (await skills.put({ ...a, requiredScopes: ['x'] }, 10))!;
      expect(second).toBeGreaterThan(first);
      expect(replaced).toBeGreaterThan(second);
      const [found] = await skills.get([a.path]);
      expect(found).toMatchObject({ version: replaced, requiredScopes: ['x'] });
    });

    it('refuses a new skill beyond the bound, storing nothing; a replacement still goes; a removal makes room', async () => {
      const skills = await single();
      const [a, b, c] = [storedSkill(), storedSkill(), storedSkill()];
      expect(await skills.put(a, 2)).toBeDefined();
      expect(await skills.put(b, 2)).toBeDefined();
      expect(await skills.put(c, 2)).toBeUndefined();
      expect(await skills.get([c.path])).toEqual([undefined]);
      expect([...(await skills.versions()).keys()].sort()).toEqual([a.path, b.path].sort());
      expect(await skills.put(a, 2)).toBeDefined();
      expect(await skills.remove(b.path)).toBe(true);
      expect(await skills.put(c, 2)).toBeDefined();
    });

    it('removes a skill once: gone from versions and get', async () => {
      const skills = await single();
      const skill = storedSkill();
      await skills.put(skill, 10);
      expect(await skills.remove(skill.path)).toBe(true);
      expect(await skills.remove(skill.path)).toBe(false);
      expect(await skills.get([skill.path])).toEqual([undefined]);
      expect(await skills.versions()).toEqual(new Map());
    });

    if (!subject.shared) return;

    it('several instances share the skills: put on one, read and removed on another', async () => {
      const world = await deploy();
      const [a, b] = [skillsOf(await world.instance()), skillsOf(await world.instance())];
      const skill = storedSkill();
      const version = await a.put(skill, 10);
      expect(await b.versions()).toEqual(new Map([[skill.path, version]]));
      expect((await b.get([skill.path]))[0]).toMatchObject({ path: skill.path, version });
      expect(await b.remove(skill.path)).toBe(true);
      expect(await a.get([skill.path])).toEqual([undefined]);
      // Versions grow across instances.
      const next = (await b.put(skill, 10))!;
      expect(next).toBeGreaterThan(version!);
    });

    it('of several instances putting a new skill into the last free place at once, exactly one gets it', async () => {
      const world = await deploy();
      const stores = [
        skillsOf(await world.instance()),
        skillsOf(await world.instance()),
        skillsOf(await world.instance()),
      ];
      for (let race = 0; race < 10; race++) {
        await Promise.all([...(await stores[0].versions()).keys()].map((path) => stores[0].remove(path)));
        await stores[0].put(storedSkill(), 2);
        const outcomes = await Promise.all(stores.map((store) => store.put(storedSkill(), 2)));
        expect(outcomes.filter((version) => version !== undefined)).toHaveLength(1);
        expect((await stores[1].versions()).size).toBe(2);
      }
    });
  });
}
