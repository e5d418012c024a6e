/**
 * The gateway's long-running tool, `notes.export`: a task for a client that can poll one (the
 * tasks extension, or a 2025-11-25 task-augmented call, with progress on the session stream), a
 * plain call for any other, the same handler either way; it stops at once when cancelled.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpTasks } from '@app/mcp/extensions/tasks/mcp-tasks.service.js';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { modernRequest, modernResult, pollUntil } from '../support/modern-tasks-client.js';
import { until } from '../support/until.js';

describe('notes.export', () => {
  let gateway: RunningGateway;
  let slow: RunningGateway;
  const clients: Client[] = [];

  beforeAll(async () => {
    gateway = await startGateway({ NOTES_EXPORT_STEP_MS: '150' });
    slow = await startGateway({ NOTES_EXPORT_STEP_MS: '600000' });
    for (const endpoint of [gateway.endpoint, slow.endpoint]) {
      for (const [title, body] of [
        ['Alpha', 'first'],
        ['Beta', 'second'],
      ]) {
        await modernResult(endpoint, 'tools/call', { name: 'notes.create', arguments: { title, body } });
      }
    }
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await gateway?.close();
    await slow?.close();
  });

  async function connect(endpoint: string): Promise<Client> {
    const client = new Client({ name: 'exporter', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    clients.push(client);
    await client.listTools();
    return client;
  }

  it('is a task for a client of the tasks extension; the json export parses, with structured content', async () => {
    const created = await modernResult(gateway.endpoint, 'tools/call', {
      name: 'notes.export',
      arguments: { format: 'json' },
    });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await pollUntil(gateway.endpoint, created.taskId, ['completed', 'failed', 'cancelled']);
    expect(done.status).toBe('completed');
    const exported = JSON.parse(done.result.content[0].text) as { notes: Array<{ title: string }> };
    expect(exported.notes.map((note) => note.title)).toEqual(['Alpha', 'Beta']);
    expect(done.result.structuredContent).toMatchObject({ format: 'json', count: 2 });
  });

  it('as a 2025-11-25 task: progress and a status message per step, then the markdown', async () => {
    const client = await connect(gateway.endpoint);
    const progress: string[] = [];
    const stream = client.experimental.tasks.callToolStream(
      { name: 'notes.export', arguments: { format: 'markdown' } },
      CallToolResultSchema,
      { task: { ttl: 60_000 }, onprogress: (update) => progress.push(update.message ?? '') },
    );
    const statusMessages = new Set<string>();
    let result: any;
    for await (const message of stream) {
      if (message.type === 'taskStatus' && message.task.statusMessage) statusMessages.add(message.task.statusMessage);
      if (message.type === 'result') result = message.result;
      if (message.type === 'error') throw message.error;
    }
    expect(result.content[0].text).toMatch(/^# Notes \(2\)\n\n## Alpha\n\nfirst/);
    await until(() => progress.length === 2, 'a progress notification per note');
    expect(progress).toEqual(['Exported note 1 of 2: Alpha', 'Exported note 2 of 2: Beta']);
    expect([...statusMessages].every((text) => /^Exported note [12] of 2: (Alpha|Beta)$/.test(text))).toBe(true);
  });

  it('runs in its request for a client that does not poll tasks', async () => {
    const client = await connect(gateway.endpoint);
    const result = await client.callTool({ name: 'notes.export', arguments: { format: 'markdown' } });
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(/^# Notes \(2\)/);
    expect(result.structuredContent).toMatchObject({ format: 'markdown', count: 2 });
  });

  it('refuses a format it does not know', async () => {
    const client = await connect(gateway.endpoint);
    const result = await client.callTool({ name: 'notes.export', arguments: { format: 'pdf' } });
    expect(result.isError).toBe(true);
  });

  it('stops at once when its task is cancelled', async () => {
    const tasks = slow.app.get(McpTasks);
    const created = await modernResult(slow.endpoint, 'tools/call', {
      name: 'notes.export',
      arguments: { format: 'json' },
    });
    expect(tasks.runningCount).toBe(1);
    const ack = await modernRequest(slow.endpoint, 'tasks/cancel', { taskId: created.taskId });
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    // The step waits ten minutes; the handler ends well within the bound of `until`.
    await until(() => tasks.runningCount === 0, 'the export handler ended');
    expect((await modernResult(slow.endpoint, 'tasks/get', { taskId: created.taskId })).status).toBe('cancelled');
  });
});
