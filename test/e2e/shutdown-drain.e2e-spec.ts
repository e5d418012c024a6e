/**
 * Graceful shutdown drains streams and keeps sessions (docs/decisions/0005-several-instances-share-one-backend.md;
 * the rework of the shutdown path):
 * `app.close()` ends each open GET stream with a `retry:` hint, so the client reconnects (to
 * another instance with a shared backend) with `Last-Event-ID`, and ends no session.
 */
import { request } from 'node:http';
import { McpSessionManager } from '@app/mcp/session/mcp-session.manager.js';
import { BasicTools } from '../fixtures/basic.tools.js';
import { startFixtureApp } from '../fixtures/fixture-app.js';
import { within } from '../support/http-wire.js';
import { openSession } from '../support/raw-http.js';

/** Opens the session's GET stream and collects its raw text until the server ends it. */
function rawStream(endpoint: string, headers: Record<string, string>) {
  return new Promise<{ text: () => string; ended: Promise<void> }>((resolve, reject) => {
    const req = request(endpoint, {
      method: 'GET',
      agent: false,
      headers: { ...headers, accept: 'text/event-stream' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      const ended = new Promise<void>((done) => res.once('close', () => done()));
      resolve({ text: () => text, ended });
    });
    req.end();
  });
}

it('app.close() ends the open stream with retry: 1000 and ends no session', async () => {
  const fixture = await startFixtureApp({ providers: [BasicTools] });
  const ended: string[] = [];
  fixture.app.get(McpSessionManager).onSessionEnd((sessionId, reason) => void ended.push(`${sessionId} ${reason}`));
  const { headers } = await openSession(fixture.endpoint);
  const stream = await rawStream(fixture.endpoint, headers);

  await within(fixture.close(), 5_000, 'app.close()');
  await within(stream.ended, 5_000, 'the end of the drained stream');
  expect(stream.text()).toMatch(/(^|\n)retry: 1000\n\n$/);
  expect(ended).toEqual([]);
});
