import type { McpSkillStore, McpStoredSkill, McpVersionedSkill } from '@nest-mcp/server/backend';
import { guarded } from './redis-errors.js';
import type { RedisClient } from './redis-scripts.js';

/**
 * The keys of the runtime skills, under the backend's prefix. All three carry the hash tag
 * `{sk}`, so that in Redis Cluster they share one slot and a script may touch them together:
 *
 * | Key | Type | Content |
 * |---|---|---|
 * | `{sk}:v` | HASH | skill path → its version (the index: read whole by every catch-up, small) |
 * | `{sk}:d` | HASH | skill path → `<version> <JSON>`: `{"s": scopes, "f": [[file path, base64 bytes], ...]}` |
 * | `{sk}:n` | STRING | the last version given |
 */
export class RedisSkillKeys {
  constructor(private readonly prefix: string) {}

  get versions(): string {
    return `${this.prefix}{sk}:v`;
  }

  get data(): string {
    return `${this.prefix}{sk}:d`;
  }

  get counter(): string {
    return `${this.prefix}{sk}:n`;
  }
}

/** KEYS: versions, data, counter. ARGV: path, JSON, most skills. A new path beyond the bound: -1. */
const PUT = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return -1
end
local version = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[1], ARGV[1], version)
redis.call('HSET', KEYS[2], ARGV[1], version .. ' ' .. ARGV[2])
return version
`;

/** KEYS: versions, data. ARGV: path. 1 when a skill was removed. */
const REMOVE = `
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
`;

interface SkillScripts {
  mcpSkillPut(
    versions: string,
    data: string,
    counter: string,
    path: string,
    json: string,
    max: number,
  ): Promise<number>;
  mcpSkillRemove(versions: string, data: string, path: string): Promise<number>;
}

/** A stored skill's value as JSON: its scopes and its files, each as base64. */
interface Encoded {
  readonly s?: readonly string[];
  readonly f: readonly [path: string, base64: string][];
}

/**
 * The runtime skills in Redis, shared by every instance of the deployment (and kept while none
 * runs: they are data). A put or a removal is one script (atomic: the bound on the number of
 * skills holds with every instance putting at once); `versions` and `get` are one command each.
 */
export class RedisSkillStore implements McpSkillStore {
  private readonly scripts: SkillScripts;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisSkillKeys,
  ) {
    redis.defineCommand('mcpSkillPut', { numberOfKeys: 3, lua: PUT });
    redis.defineCommand('mcpSkillRemove', { numberOfKeys: 2, lua: REMOVE });
    this.scripts = redis as unknown as SkillScripts;
  }

  async put(skill: McpStoredSkill, maxSkills: number): Promise<number | undefined> {
    const encoded: Encoded = {
      ...(skill.requiredScopes ? { s: skill.requiredScopes } : {}),
      f: skill.files.map((file) => [file.path, Buffer.from(file.bytes).toString('base64')]),
    };
    const { versions, data, counter } = this.keys;
    const version = await guarded(
      this.scripts.mcpSkillPut(versions, data, counter, skill.path, JSON.stringify(encoded), maxSkills),
    );
    return version === -1 ? undefined : version;
  }

  async remove(path: string): Promise<boolean> {
    return (await guarded(this.scripts.mcpSkillRemove(this.keys.versions, this.keys.data, path))) === 1;
  }

  async versions(): Promise<Map<string, number>> {
    const all = await guarded(this.redis.hgetall(this.keys.versions));
    return new Map(Object.entries(all).map(([path, version]) => [path, Number(version)]));
  }

  async get(paths: readonly string[]): Promise<(McpVersionedSkill | undefined)[]> {
    if (paths.length === 0) return [];
    const values = await guarded(this.redis.hmget(this.keys.data, ...paths));
    return values.map((value, index) => (value === null ? undefined : decode(paths[index], value)));
  }
}

/** A stored value back as a skill; one that does not decode (written by something else) is none. */
function decode(path: string, value: string): McpVersionedSkill | undefined {
  const space = value.indexOf(' ');
  const version = Number(value.slice(0, space));
  let encoded: Encoded;
  try {
    encoded = JSON.parse(value.slice(space + 1)) as Encoded;
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(version) || !Array.isArray(encoded?.f)) return undefined;
  return {
    path,
    version,
    files: encoded.f.map(([filePath, base64]) => ({ path: filePath, bytes: Buffer.from(base64, 'base64') })),
    ...(encoded.s ? { requiredScopes: encoded.s } : {}),
  };
}
