/**
 * Sampling from one handler in both eras, answered by the official SDK v2 client's own handler:
 * the gateway's `notes.summarize` asks the client's model with `ctx.sample`. Pinned 2026-07-28 it
 * is an `input_required` round the client answers and retries (HTTP and stdio); `'legacy'` it is
 * a `sampling/createMessage` request pushed on the session. A client that declared no sampling
 * gets a tool error in both eras, and the server keeps serving.
 */
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/client';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import {
  connectSdkV2,
  modeName,
  PINNED,
  toolJson,
  toolText,
  type NegotiationMode,
  type SdkTransportKind,
  type SdkV2Connection,
} from '../support/sdk-v2-clients.js';
import { buildGatewayIfNeeded } from '../support/stdio-client.js';

const TEST_TIMEOUT_MS = 60_000;

beforeAll(async () => {
  await buildGatewayIfNeeded();
}, 240_000);

const CASES: Array<[SdkTransportKind, NegotiationMode]> = [
  ['http', PINNED],
  ['stdio', PINNED],
  ['http', 'legacy'],
];

describe.each(CASES)('SDK v2 client over %s, %p: notes.summarize samples the client', (kind, mode) => {
  let gateway: RunningGateway | undefined;
  const open: SdkV2Connection[] = [];

  beforeAll(async () => {
    if (kind === 'http') gateway = await startGateway({ MCP_WIRE_PROFILE: 'strict' });
  });

  afterEach(async () => {
    for (const connection of open.splice(0)) await connection.close();
  });

  afterAll(async () => {
    await gateway?.close();
  });

  const connect = async (sampling: boolean): Promise<SdkV2Connection> => {
    const connection = await connectSdkV2(kind, {
      mode,
      endpoint: gateway?.endpoint,
      name: `sampling-${modeName(mode)}`,
      elicitation: sampling,
      clientOptions: { capabilities: sampling ? { sampling: {}, elicitation: { form: {} } } : {} },
    });
    open.push(connection);
    return connection;
  };

  it(
    "the client's sampling handler writes the summary; the model's answer comes back",
    async () => {
      const connection = await connect(true);
      const asked: CreateMessageRequest['params'][] = [];
      connection.client.setRequestHandler('sampling/createMessage', async (request): Promise<CreateMessageResult> => {
        asked.push(request.params);
        return { role: 'assistant', content: { type: 'text', text: 'A note about tea.' }, model: 'test-model' };
      });
      const { id } = toolJson(
        await connection.client.callTool({
          name: 'notes.create',
          arguments: { title: 'Tea', body: 'Green tea wants water at 80 °C.' },
        }),
      );

      const summary = toolJson(await connection.client.callTool({ name: 'notes.summarize', arguments: { id } }));

      expect(summary).toEqual({ id, summary: 'A note about tea.', model: 'test-model' });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        maxTokens: 200,
        messages: [{ role: 'user', content: { type: 'text', text: expect.stringContaining('80 °C') } }],
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a client without sampling gets a tool error, and the next call is served',
    async () => {
      const connection = await connect(false);
      const { id } = toolJson(
        await connection.client.callTool({ name: 'notes.create', arguments: { title: 'Plain', body: 'text' } }),
      );

      const refused = await connection.client.callTool({ name: 'notes.summarize', arguments: { id } });

      expect(refused.isError).toBe(true);
      expect(toolText(refused)).toContain('cannot run a model');
      expect(toolJson(await connection.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBeDefined();
    },
    TEST_TIMEOUT_MS,
  );
});
