import type { WebSocket } from 'ws';
import { WS_CLOSE_SLOW_CONSUMER, WsConnection } from './ws.connection.js';

const MiB = 1024 * 1024;

/** A socket whose backlog is what the test says: each send adds to it, the client reads it away. */
class FakeSocket {
  readonly OPEN = 1;
  readonly CONNECTING = 0;
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: string[] = [];
  closedWith: number | undefined;

  send(data: string): void {
    this.sent.push(data);
    this.bufferedAmount += data.length;
  }

  close(code: number): void {
    this.closedWith = code;
    this.readyState = 2;
  }

  read(bytes: number): void {
    this.bufferedAmount = Math.max(0, this.bufferedAmount - bytes);
  }
}

describe('WsConnection backlog', () => {
  const open = () => {
    const socket = new FakeSocket();
    return { socket, connection: new WsConnection(socket as unknown as WebSocket, MiB) };
  };

  it('sends a small answer written while a 3 MiB answer is still draining', () => {
    const { socket, connection } = open();
    expect(connection.send('x'.repeat(3 * MiB))).toBe(true);
    socket.read(64 * 1024);
    expect(connection.send('{"jsonrpc":"2.0","id":2,"result":{}}')).toBe(true);
    expect(socket.closedWith).toBeUndefined();
    expect(socket.sent).toHaveLength(2);
  });

  it('closes with 1013, without sending, a peer that leaves more than the bound unread besides one message', () => {
    const { socket, connection } = open();
    expect(connection.send('x'.repeat(3 * MiB))).toBe(true);
    expect(connection.send('y'.repeat(2 * MiB))).toBe(false);
    expect(socket.closedWith).toBe(WS_CLOSE_SLOW_CONSUMER);
    expect(socket.sent).toHaveLength(1);
    expect(connection.send('{}')).toBe(false);
  });

  it('closes with 1013 a peer that stops reading a flood of small messages', () => {
    const { socket, connection } = open();
    let sent = 0;
    while (connection.send('z'.repeat(10_000))) sent++;
    expect(socket.closedWith).toBe(WS_CLOSE_SLOW_CONSUMER);
    expect(sent * 10_000).toBeLessThanOrEqual(MiB + 10_000);
  });
});
