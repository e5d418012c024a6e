/**
 * Skills registered at runtime on several instances sharing one Redis: a skill registered on one
 * instance is listed, got and read (the same bytes) on every other, a removal on any instance
 * removes it everywhere, each instance's clients hear `list_changed` (2025 sessions on their
 * stream, 2026-07-28 clients through `subscriptions/listen`), an instance that starts later serves
 * what is stored at once, and the bound on the number of skills holds across instances.
 */
import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { McpDefinitionError, McpModule, McpSkills } from '@app/mcp';
import { RedisMcpBackend } from '@nest-mcp/redis';
import { openSession } from '../support/raw-http.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';
import { connectSdkV2, PINNED, type SdkV2Connection } from '../support/sdk-v2-clients.js';
import { isListChanged, rawSession, type RawSession, type SseClient } from '../support/sse-client.js';

const WAIT_MS = 10_000;
const REFUNDS = 'skill://billing/refunds/SKILL.md';
const POLICY = 'skill://billing/refunds/references/policy.md';
const manifest = (name: string, description: string): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
const digestOf = (bytes: Uint8Array | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

interface Instance {
  readonly app: INestApplication;
  readonly endpoint: string;
  readonly skills: McpSkills;
}

describe('runtime skills on three instances sharing Redis', () => {
  let redis: TestRedis;
  let keyPrefix: string;
  const instances: Instance[] = [];
  const closing: (() => Promise<unknown>)[] = [];

  const start = async (instanceId: string): Promise<Instance> => {
    @Module({
      imports: [
        McpModule.forRoot({
          serverInfo: { name: 'skills-cluster', version: '1' },
          skills: { maxRuntimeSkills: 3 },
          delivery: { listChangedDebounceMs: 10 },
          backend: new RedisMcpBackend({ url: redis.url, keyPrefix, instanceId }),
        }),
      ],
    })
    class SkillsClusterModule {}
    const app = await NestFactory.create(SkillsClusterModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    const endpoint = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
    return { app, endpoint, skills: app.get(McpSkills) };
  };

  beforeAll(async () => {
    redis = await startRedis();
    keyPrefix = redis.prefix();
    for (const id of ['k1', 'k2', 'k3']) instances.push(await start(id));
  }, 60_000);

  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
    // Each test starts from no runtime skills (they are kept in Redis between instances' lives).
    for (const path of instances[0].skills.paths()) await instances[0].skills.remove(path);
  });

  afterAll(async () => {
    for (const { app } of instances) await app.close();
    await redis?.stop();
  });

  /** A 2025 session on `instance` with its GET stream open. */
  const legacyOn = async (instance: Instance): Promise<{ session: RawSession; stream: SseClient }> => {
    const session = rawSession(instance.endpoint, await openSession(instance.endpoint));
    const stream = await session.openStream();
    expect(stream.status).toBe(200);
    closing.push(async () => stream.close());
    return { session, stream };
  };

  const listedOn = async (session: RawSession): Promise<string[]> =>
    (await session.rpc('skills/list')).result.skills.map((skill: { uri: string }) => skill.uri);

  /**
   * Waits for list_changed on `stream` until the session lists `expected`: every instance that
   * caught up announces it, so the first one may come from an instance ahead of this one.
   */
  const untilListed = async (session: RawSession, stream: SseClient, expected: string[]): Promise<void> => {
    let from = 0;
    for (;;) {
      const changed = await stream.waitFor(isListChanged, WAIT_MS, from);
      if (JSON.stringify(await listedOn(session)) === JSON.stringify(expected)) return;
      from = changed.index + 1;
    }
  };

  it('a skill registered on one instance is served by the others, byte for byte; removed on one, gone from all', async () => {
    const [a, b, c] = instances;
    const onB = await legacyOn(b);
    const onC = await legacyOn(c);
    const policy = 'Refund within 30 days.\n';

    await a.skills.register(
      'billing/refunds',
      { 'SKILL.md': manifest('refunds', 'How to refund an order'), 'references/policy.md': policy },
      { requiredScopes: ['billing'] },
    );

    await untilListed(onB.session, onB.stream, [REFUNDS]);
    await untilListed(onC.session, onC.stream, [REFUNDS]);
    const entry = (await onC.session.rpc('skills/get', { uri: REFUNDS })).result.skill;
    expect(entry.resources).toEqual([
      { uri: REFUNDS, digest: digestOf(manifest('refunds', 'How to refund an order')), size: expect.any(Number) },
      { uri: POLICY, digest: digestOf(policy), size: policy.length },
    ]);
    const read = await onB.session.rpc('resources/read', { uri: POLICY });
    expect(read.result.contents[0].text).toBe(policy);
    expect(b.skills.paths()).toEqual(['billing/refunds']);

    expect(await c.skills.remove('billing/refunds')).toBe(true);

    await untilListed(onB.session, onB.stream, []);
    const onA = await legacyOn(a);
    expect(await listedOn(onA.session)).toEqual([]);
    expect((await onB.session.rpc('resources/read', { uri: POLICY })).error.code).toBe(-32002);
  });

  it('a 2026-07-28 client listening on another instance hears the registration and reads the skill there', async () => {
    const [a, , c] = instances;
    const modern: SdkV2Connection = await connectSdkV2('http', {
      mode: PINNED,
      endpoint: c.endpoint,
      elicitation: false,
    });
    closing.push(() => modern.close());
    let heard = 0;
    let wake: () => void = () => undefined;
    modern.client.setNotificationHandler('notifications/resources/list_changed', () => {
      heard++;
      wake();
    });
    const subscription = await modern.client.listen({ resourcesListChanged: true });
    closing.push(() => subscription.close());

    await a.skills.register('refunds', { 'SKILL.md': manifest('refunds', 'How to refund an order') });

    // Heard at least once, and served on the listening client's instance once it caught up.
    for (let round = 0; round < 10; round++) {
      if (heard === 0) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no list_changed on the listen')), WAIT_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      if (c.skills.paths().includes('refunds')) break;
      heard = 0;
    }
    expect(c.skills.paths()).toEqual(['refunds']);
    const read = await modern.client.readResource({ uri: 'skill://refunds/SKILL.md' });
    expect((read.contents[0] as { text: string }).text).toBe(manifest('refunds', 'How to refund an order'));
  });

  it('an instance that starts later serves what is stored at once', async () => {
    await instances[1].skills.register('refunds', { 'SKILL.md': manifest('refunds', 'How to refund an order') });
    const late = await start('k4');
    closing.push(() => late.app.close());

    expect(late.skills.paths()).toEqual(['refunds']);
    const { session } = await legacyOn(late);
    expect(await listedOn(session)).toEqual(['skill://refunds/SKILL.md']);
  });

  it('the bound on the number of skills holds across instances: of two registering into the last place, one is refused', async () => {
    const [a, b, c] = instances;
    await a.skills.register('one', { 'SKILL.md': manifest('one', 'x') });
    await b.skills.register('two', { 'SKILL.md': manifest('two', 'x') });

    const outcomes = await Promise.allSettled([
      b.skills.register('three', { 'SKILL.md': manifest('three', 'x') }),
      c.skills.register('four', { 'SKILL.md': manifest('four', 'x') }),
    ]);

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(McpDefinitionError);
    expect(String(refused.reason)).toContain('as many as skills.maxRuntimeSkills allows');
  });
});
