/**
 * The reference gateway's notes domain: the tools notes.create / notes.update /
 * notes.delete, the resources db://notes, db://notes/latest and db://notes/<id>, and the prompt
 * summarize-note, over raw HTTP, as a client sees them.
 */
import { ResourceNotificationService } from '@app/mcp';
import { startGateway, type RunningGateway } from '../support/gateway-app.js';
import { openSession, rawRequest } from '../support/raw-http.js';
import {
  isListChanged,
  isUpdated,
  rawSession,
  toolJson,
  updatedUris,
  type RawSession,
  type SseClient,
} from '../support/sse-client.js';

const NOTES = 'db://notes';
const LATEST = 'db://notes/latest';

describe('notes domain', () => {
  let gateway: RunningGateway;
  let session: RawSession;
  const streams = new Set<SseClient>();

  beforeEach(async () => {
    gateway = await startGateway();
    session = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
  });

  afterEach(async () => {
    for (const stream of streams) stream.close();
    streams.clear();
    await rawRequest(gateway.endpoint, 'DELETE', session.headers).catch(() => undefined);
    await gateway?.close();
  });

  const create = async (title: string, body: string): Promise<{ id: string; uri: string }> =>
    toolJson(await session.callTool('notes.create', { title, body }));

  const read = async (uri: string): Promise<any> => session.rpc('resources/read', { uri });

  const readJson = async (uri: string): Promise<any> => {
    const response = await read(uri);
    expect(response.error).toBeUndefined();
    expect(response.result.contents).toHaveLength(1);
    const [content] = response.result.contents;
    expect(content).toEqual({ uri, mimeType: 'application/json', text: expect.any(String) });
    return JSON.parse(content.text);
  };

  /** Every resource of `resources/list`, walking all pages (bounded). */
  const listAll = async (): Promise<any[]> => {
    const items: any[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const response = await session.rpc('resources/list', cursor === undefined ? {} : { cursor });
      expect(response.error).toBeUndefined();
      items.push(...response.result.resources);
      cursor = response.result.nextCursor;
      if (cursor === undefined) return items;
    }
    throw new Error('resources/list did not end within 100 pages');
  };

  it('notes.create answers {id, uri} as JSON text, uri = db://notes/<id>', async () => {
    const response = await session.callTool('notes.create', { title: 'Groceries', body: 'milk' });
    const result = response.result;
    expect(result.isError).toBeFalsy();
    expect(result.content[0].type).toBe('text');
    const created = JSON.parse(result.content[0].text);
    expect(created).toEqual({ id: expect.any(String), uri: `db://notes/${created.id}` });
    expect(created.id).not.toBe('');
    if (result.structuredContent !== undefined) expect(result.structuredContent).toEqual(created);
  });

  it('notes.update answers {id, uri, updatedAt} and changes the note', async () => {
    const { id, uri } = await create('Plan', 'v1');
    const updated = toolJson(await session.callTool('notes.update', { id, body: 'v2' }));
    expect(updated).toEqual({ id, uri, updatedAt: expect.any(String) });
    expect(Number.isNaN(Date.parse(updated.updatedAt))).toBe(false);
    expect(await readJson(uri)).toEqual(
      expect.objectContaining({ id, title: 'Plan', body: 'v2', updatedAt: updated.updatedAt }),
    );
  });

  it('notes.delete answers {id, deleted: true}; the note is gone from db://notes and reads -32002', async () => {
    const { id, uri } = await create('Temp', 'x');
    const kept = await create('Kept', 'y');
    expect(toolJson(await session.callTool('notes.delete', { id }))).toEqual({ id, deleted: true });
    expect(await readJson(NOTES)).toEqual([{ id: kept.id, title: 'Kept', uri: kept.uri }]);

    const response = await read(uri);
    expect(response.result).toBeUndefined();
    expect(response.error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: expect.objectContaining({ uri, detail: expect.any(String) }),
    });
  });

  it.each(['notes.update', 'notes.delete'])('%s of an unknown id is a tool error (isError: true)', async (tool) => {
    const args = tool === 'notes.update' ? { id: 'no-such-note', body: 'x' } : { id: 'no-such-note' };
    const response = await session.callTool(tool, args);
    expect(response.error).toBeUndefined();
    expect(response.result.isError).toBe(true);
    expect(response.result.content[0]).toEqual({ type: 'text', text: expect.stringContaining('no-such-note') });
  });

  it('db://notes lists every note as {id, title, uri}, in creation order', async () => {
    expect(await readJson(NOTES)).toEqual([]);
    const a = await create('Alpha', 'a');
    const b = await create('Beta', 'b');
    expect(await readJson(NOTES)).toEqual([
      { id: a.id, title: 'Alpha', uri: a.uri },
      { id: b.id, title: 'Beta', uri: b.uri },
    ]);
  });

  it("db://notes/latest with no notes answers -32602 with data.detail 'No notes exist yet'", async () => {
    const response = await read(LATEST);
    expect(response.result).toBeUndefined();
    expect(response.error).toEqual({
      code: -32602,
      message: 'Invalid params',
      data: expect.objectContaining({ detail: 'No notes exist yet' }),
    });
  });

  it('db://notes/latest is the most recently created or updated note', async () => {
    const a = await create('Alpha', 'a1');
    expect(await readJson(LATEST)).toEqual(expect.objectContaining({ id: a.id, title: 'Alpha', body: 'a1' }));
    const b = await create('Beta', 'b1');
    expect(await readJson(LATEST)).toEqual(expect.objectContaining({ id: b.id, title: 'Beta', body: 'b1' }));
    toolJson(await session.callTool('notes.update', { id: a.id, body: 'a2' }));
    expect(await readJson(LATEST)).toEqual(expect.objectContaining({ id: a.id, title: 'Alpha', body: 'a2' }));
  });

  it('db://notes/latest falls back to the remaining note after the latest is deleted, and errors once none are left', async () => {
    const a = await create('Alpha', 'a');
    const b = await create('Beta', 'b');
    toolJson(await session.callTool('notes.delete', { id: b.id }));
    expect(await readJson(LATEST)).toEqual(expect.objectContaining({ id: a.id }));
    toolJson(await session.callTool('notes.delete', { id: a.id }));
    expect((await read(LATEST)).error).toEqual(
      expect.objectContaining({ code: -32602, data: expect.objectContaining({ detail: 'No notes exist yet' }) }),
    );
  });

  it('summarize-note returns a user message holding the title and body', async () => {
    const { id } = await create('Quarterly report', 'Revenue grew by 12 percent.');
    const response = await session.rpc('prompts/get', { name: 'summarize-note', arguments: { id } });
    expect(response.error).toBeUndefined();
    const { messages } = response.result;
    expect(messages).toHaveLength(1);
    expect(messages[0].role).toBe('user');
    expect(messages[0].content.type).toBe('text');
    expect(messages[0].content.text).toContain('Quarterly report');
    expect(messages[0].content.text).toContain('Revenue grew by 12 percent.');
  });

  it('summarize-note of an unknown id (or without id) answers -32602', async () => {
    for (const args of [{ id: 'no-such-note' }, {}]) {
      const response = await session.rpc('prompts/get', { name: 'summarize-note', arguments: args });
      expect(response.result).toBeUndefined();
      expect(response.error).toEqual(
        expect.objectContaining({ code: -32602, data: expect.objectContaining({ detail: expect.any(String) }) }),
      );
    }
  });

  it('resources/list includes db://notes/<id> (name = title, application/json) until the note is deleted', async () => {
    const { id, uri } = await create('Listed note', 'x');
    const listed = (await listAll()).filter((resource) => resource.uri === uri);
    expect(listed).toEqual([expect.objectContaining({ uri, name: 'Listed note', mimeType: 'application/json' })]);
    expect(await readJson(uri)).toEqual(expect.objectContaining({ id, title: 'Listed note', body: 'x' }));

    toolJson(await session.callTool('notes.delete', { id }));
    const after = await listAll();
    expect(after.map((resource) => resource.uri)).not.toContain(uri);
    expect(after.map((resource) => resource.uri)).toEqual(expect.arrayContaining([NOTES, LATEST]));
  });

  it('notes.create notifies db://notes subscribers and sends list_changed to every open stream', async () => {
    expect((await session.subscribe(NOTES)).result).toEqual({ subscribed: true, uri: NOTES });
    const subscriber = await session.openStream();
    streams.add(subscriber);
    const bystander = rawSession(gateway.endpoint, await openSession(gateway.endpoint));
    expect((await bystander.subscribe('system://info')).result).toEqual({ subscribed: true, uri: 'system://info' });
    const bystanderStream = await bystander.openStream();
    streams.add(bystanderStream);

    await create('Announce', 'x');
    await subscriber.waitFor(isUpdated(NOTES));
    await subscriber.waitFor(isListChanged);
    await bystanderStream.waitFor(isListChanged);

    // The bystander is not subscribed to db://notes: barrier on its own subscription.
    const mark = bystanderStream.events.length;
    await gateway.app.get(ResourceNotificationService).notifyResourceUpdated('system://info');
    const barrier = await bystanderStream.waitFor(isUpdated('system://info'), 5_000, mark);
    expect(updatedUris(bystanderStream.events.slice(0, barrier.index))).toEqual([]);
    await rawRequest(gateway.endpoint, 'DELETE', bystander.headers);
  });
});
