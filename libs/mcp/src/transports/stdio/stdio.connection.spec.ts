import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { StdioConnection } from './stdio.connection.js';

const CAP = 100;

/** stdout of a client that never reads: every write stays in the stream's buffer. */
function unreadOutput(): { output: Writable; lines: () => string[] } {
  const written: string[] = [];
  const output = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, _callback) {
      // Never calls back: the first chunk is "in the pipe", the rest queue behind it.
      written.push(chunk.toString('utf8'));
    },
  });
  return { output, lines: () => written };
}

describe('StdioConnection', () => {
  Logger.overrideLogger(false);

  it('is congested once the unread backlog passes the cap', () => {
    const { output } = unreadOutput();
    const connection = new StdioConnection(output, CAP);
    connection.send(JSON.stringify({ n: 'x'.repeat(40) }));
    expect(connection.congested).toBe(false);
    connection.send(JSON.stringify({ n: 'x'.repeat(80) }));
    expect(connection.congested).toBe(true);
  });

  it('drops what the server starts itself past twice the cap, never an answer', () => {
    const { output } = unreadOutput();
    const connection = new StdioConnection(output, CAP);
    const notification = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { p: 'x'.repeat(60) },
    });
    while (output.writableLength <= 2 * CAP) connection.send(notification);
    const before = output.writableLength;

    expect(connection.send(notification)).toBe(true);
    expect(output.writableLength).toBe(before);

    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { big: 'y'.repeat(500) } });
    expect(connection.answer(answer)).toBe(true);
    expect(output.writableLength).toBe(before + answer.length + 1);
  });

  it('writes nothing once stdout has ended', () => {
    const { output } = unreadOutput();
    const connection = new StdioConnection(output, CAP);
    output.destroy();
    expect(connection.send('{"jsonrpc":"2.0","method":"x"}')).toBe(false);
    expect(connection.answer('{"jsonrpc":"2.0","id":1,"result":{}}')).toBe(false);
  });
});
