import { describe, expect, it } from '@jest/globals';
import { McpBackendUnavailableError } from '@nest-mcp/server/backend';
import { toBackendError } from './redis-errors.js';

const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

describe('toBackendError', () => {
  it('makes an outage unavailable (503): no connection, a timeout, a server loading or failing over', () => {
    for (const error of [
      new Error('Connection is closed.'),
      new Error('Command timed out'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }),
      replyError('LOADING Redis is loading the dataset in memory'),
      replyError("READONLY You can't write against a read only replica."),
    ]) {
      expect(toBackendError(error)).toBeInstanceOf(McpBackendUnavailableError);
    }
  });

  it('keeps any other reply error as it is (a bug answers 500, not 503)', () => {
    const bug = replyError('WRONGTYPE Operation against a key holding the wrong kind of value');
    expect(toBackendError(bug)).toBe(bug);
  });
});
