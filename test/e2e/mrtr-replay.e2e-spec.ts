/**
 * An MRTR consent cannot be replayed (MCP 2026-07-28 multi round-trip requests), on the reference
 * gateway's `notes.clear` ("Delete all N notes?") over raw HTTP: the state that carried a
 * consent is accepted once, so a consent to delete one note, replayed after more notes exist,
 * deletes nothing. In one process (in memory), and across two instances on one real Redis: a
 * state from one instance is accepted once on the other, and refused everywhere after; of two
 * retries raced to both instances, one wins.
 */
import { randomBytes } from 'node:crypto';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { rpc } from '../support/http-wire.js';
import { rawPost, type RawResponse } from '../support/raw-http.js';
import { startRedis, type TestRedis } from '../support/redis-server.js';

const MODERN = '2026-07-28';
const STATE_KEYS = 'mrtr-replay-request-state-key-1';
const CONSENT = { confirm: { action: 'accept', content: { confirm: true } } };

let ids = 0;

/** A modern `tools/call` with its `_meta` and matching headers. */
function callTool(gateway: RunningGateway, name: string, params: Record<string, unknown> = {}): Promise<RawResponse> {
  const body = rpc(++ids, 'tools/call', {
    name,
    arguments: {},
    ...params,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    },
  });
  return rawPost(gateway.endpoint, body, {
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': name,
  });
}

async function createNote(gateway: RunningGateway, title: string): Promise<void> {
  const created = await callTool(gateway, 'notes.create', { arguments: { title, body: title } });
  expect(created.json.result).toMatchObject({ resultType: 'complete', structuredContent: { id: expect.any(String) } });
}

/** The first round of notes.clear: the question it asks, and the state to retry with. */
async function askToClear(gateway: RunningGateway): Promise<{ message: string; requestState: string }> {
  const response = await callTool(gateway, 'notes.clear');
  expect(response.json.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
  const { inputRequests, requestState } = response.json.result;
  return { message: inputRequests.confirm.params.message, requestState };
}

/** The retry with the user's consent: what it answered. */
const consent = (gateway: RunningGateway, requestState: string) =>
  callTool(gateway, 'notes.clear', { inputResponses: CONSENT, requestState });

const deletedBy = (response: RawResponse): unknown => JSON.parse(response.json.result.content[0].text);

function expectRefusedAsUsed(response: RawResponse): void {
  expect(response.status).toBe(200);
  expect(response.json.result).toBeUndefined();
  expect(response.json.error).toMatchObject({ code: -32602 });
  expect(response.json.error.data.detail).toContain('already used');
}

async function noteCount(gateway: RunningGateway): Promise<number> {
  const read = await rawPost(
    gateway.endpoint,
    rpc(++ids, 'resources/read', {
      uri: 'db://notes',
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    }),
    { 'mcp-protocol-version': MODERN, 'mcp-method': 'resources/read', 'mcp-name': 'db://notes' },
  );
  return JSON.parse(read.json.result.contents[0].text).length;
}

describe('MRTR consent replay on one gateway (in memory)', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startGateway({ MCP_REQUEST_STATE_KEYS: STATE_KEYS });
  });

  afterAll(async () => {
    await gateway?.close();
  });

  it('a consent to delete 1 note, replayed after 2 more notes exist, is refused and deletes nothing', async () => {
    await createNote(gateway, 'the only one');
    const { message, requestState } = await askToClear(gateway);
    expect(message).toContain('Delete all 1 notes?');
    expect(deletedBy(await consent(gateway, requestState))).toEqual({ deleted: 1, confirmed: true });

    await createNote(gateway, 'second');
    await createNote(gateway, 'third');
    expectRefusedAsUsed(await consent(gateway, requestState));
    expect(await noteCount(gateway)).toBe(2);
  });

  it('a yes to "Delete all N notes?" deletes those N notes, not one created before the retry', async () => {
    const before = await noteCount(gateway);
    await createNote(gateway, 'asked about');
    const { message, requestState } = await askToClear(gateway);
    expect(message).toContain(`Delete all ${before + 1} notes?`);
    await createNote(gateway, 'created while the user read the question');
    expect(deletedBy(await consent(gateway, requestState))).toEqual({ deleted: before + 1, confirmed: true });
    expect(await noteCount(gateway)).toBe(1);
  });

  it('the answer to "Delete all N notes?" is not taken without the state that asked it', async () => {
    const response = await callTool(gateway, 'notes.clear', { inputResponses: CONSENT });
    expect(response.json.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: {} } });
    expect(await noteCount(gateway)).toBeGreaterThan(0);
  });
});

describe('MRTR consent replay across two gateways on one Redis', () => {
  let redis: TestRedis;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    redis = await startRedis();
    const shared = { REDIS_URL: redis.url, MCP_REDIS_KEY_PREFIX: redis.prefix(), MCP_REQUEST_STATE_KEYS: STATE_KEYS };
    const suffix = randomBytes(3).toString('hex');
    a = await startGateway({ ...shared, MCP_INSTANCE_ID: `mrtr-a-${suffix}` });
    b = await startGateway({ ...shared, MCP_INSTANCE_ID: `mrtr-b-${suffix}` });
  }, 30_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('a state sealed on one instance is accepted once on the other, and refused on both after', async () => {
    await createNote(a, 'the only one');
    const { message, requestState } = await askToClear(a);
    expect(message).toContain('Delete all 1 notes?');
    expect(deletedBy(await consent(b, requestState))).toEqual({ deleted: 1, confirmed: true });

    await createNote(a, 'second');
    await createNote(b, 'third');
    expectRefusedAsUsed(await consent(a, requestState));
    expectRefusedAsUsed(await consent(b, requestState));
    expect(await noteCount(a)).toBe(2);
  });

  it('of one retry sent to both instances at once, exactly one is accepted', async () => {
    const { message, requestState } = await askToClear(b);
    expect(message).toContain('Delete all 2 notes?');
    const [onA, onB] = await Promise.all([consent(a, requestState), consent(b, requestState)]);
    const accepted = [onA, onB].filter((response) => response.json.result !== undefined);
    const refused = [onA, onB].filter((response) => response.json.error !== undefined);
    expect(accepted).toHaveLength(1);
    expect(deletedBy(accepted[0])).toEqual({ deleted: 2, confirmed: true });
    expect(refused).toHaveLength(1);
    expectRefusedAsUsed(refused[0]);
  });
});
