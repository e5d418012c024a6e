/**
 * Tool arguments over real Streamable HTTP: DTO defaults as docs/tools.md shows them, and arguments
 * that break the model's converter or validator (invalid arguments, see
 * docs/decisions/0002-error-codes-and-http-statuses.md).
 */
import { openSession, rawPost } from '../support/raw-http.js';
import { startFixtureApp, toolText, type ConnectedClient, type FixtureApp } from '../fixtures/fixture-app.js';
import { EchoTools } from '../fixtures/echo.tools.js';
import { WeatherTools } from '../fixtures/forecast.tools.js';

/** `{ a: { a: ... 'leaf' } }` with `levels` objects. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

let nextId = 1;

/** `tools/call` over a raw POST on a 2025-06-18 session; resolves to the JSON-RPC response. */
async function legacyCall(endpoint: string, headers: Record<string, string>, name: string, args: object) {
  const body = { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } };
  const response = await rawPost(endpoint, body, headers);
  expect(response.status).toBe(200);
  return response.json;
}

describe('tool arguments over Streamable HTTP', () => {
  describe("the Tools page's example (an undecorated property with a default)", () => {
    let fixture: FixtureApp;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [WeatherTools] });
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it('lists days as optional, with "default": 3', async () => {
      const { tools } = await mcp.client.listTools();

      expect(tools[0].inputSchema).toEqual({
        type: 'object',
        properties: {
          city: { type: 'string' },
          units: { type: ['string', 'null'], enum: ['metric', 'imperial', null] },
          days: { type: 'number', default: 3 },
        },
        required: ['city'],
        additionalProperties: false,
      });
    });

    it('runs with the default when days is left out, and with the value when it is given', async () => {
      const without = await mcp.client.callTool({ name: 'get_forecast', arguments: { city: 'Oslo' } });
      const given = await mcp.client.callTool({ name: 'get_forecast', arguments: { city: 'Oslo', days: 5 } });

      expect(without.isError).toBeFalsy();
      expect(without.structuredContent).toEqual({ city: 'Oslo', summary: 'Sunny for 3 days' });
      expect(given.isError).toBeFalsy();
      expect(given.structuredContent).toEqual({ city: 'Oslo', summary: 'Sunny for 5 days' });
    });

    it('refuses a days of the wrong type as invalid arguments', async () => {
      const result = await mcp.client.callTool({ name: 'get_forecast', arguments: { city: 'Oslo', days: 'many' } });

      expect(result.isError).toBe(true);
      expect(toolText(result)).toBe("Invalid arguments for tool 'get_forecast': days must be a number");
    });
  });

  describe('arguments that break the DTO transform or nest too deep', () => {
    let fixture: FixtureApp;
    let mcp: ConnectedClient;
    let legacy: Record<string, string>;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [EchoTools] });
      mcp = await fixture.connect();
      legacy = (await openSession(fixture.endpoint, '2025-06-18')).headers;
    });
    afterAll(() => fixture?.close());

    it('answers {"text":{"constructor":1}} as invalid arguments: isError on 2025-11-25, -32602 before', async () => {
      const args = { text: { constructor: 1 } };
      const expected =
        "Invalid arguments for tool 'echo': text.constructor: an object with a 'constructor' property cannot be converted to EchoInput";

      const result = await mcp.client.callTool({ name: 'echo', arguments: args });
      const answer = await legacyCall(fixture.endpoint, legacy, 'echo', args);

      expect(result.isError).toBe(true);
      expect(toolText(result)).toBe(expected);
      expect(answer.error).toEqual({ code: -32602, message: 'Invalid params', data: { detail: expected } });
    });

    it.each(['echo', 'echo-zod', 'echo-json'])(
      'refuses arguments nested 2,000 levels deep for %s, naming the limit',
      async (name) => {
        const args = { text: nested(2_000) };
        const expected = `Invalid arguments for tool '${name}': text is nested deeper than 64 levels (the maxArgumentDepth limit)`;

        const result = await mcp.client.callTool({ name, arguments: args });
        const answer = await legacyCall(fixture.endpoint, legacy, name, args);

        expect(result.isError).toBe(true);
        expect(toolText(result)).toBe(expected);
        expect(answer.error).toEqual({ code: -32602, message: 'Invalid params', data: { detail: expected } });
      },
    );

    it.each(['echo', 'echo-zod', 'echo-json'])('still echoes arguments 64 levels deep for %s', async (name) => {
      const result = await mcp.client.callTool({ name, arguments: { text: nested(63) } });

      expect(result.isError).toBeFalsy();
      expect(JSON.parse(toolText(result))).toEqual({ text: nested(63) });
    });
  });

  describe('the maxArgumentDepth option', () => {
    let fixture: FixtureApp;
    let mcp: ConnectedClient;

    beforeAll(async () => {
      fixture = await startFixtureApp({ providers: [EchoTools], mcp: { limits: { maxArgumentDepth: 2 } } });
      mcp = await fixture.connect();
    });
    afterAll(() => fixture?.close());

    it('moves the limit', async () => {
      const within = await mcp.client.callTool({ name: 'echo-json', arguments: { text: { a: 1 } } });
      const beyond = await mcp.client.callTool({ name: 'echo-json', arguments: { text: { a: [] } } });

      expect(within.isError).toBeFalsy();
      expect(toolText(beyond)).toBe(
        "Invalid arguments for tool 'echo-json': text is nested deeper than 2 levels (the maxArgumentDepth limit)",
      );
    });
  });
});
