import { jest } from '@jest/globals';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { endAfterBody } from './lingering-close.js';

/** A request body as a plain stream, and a response that records how it was closed. */
function standIns() {
  const body = new PassThrough();
  const res = { end: jest.fn(), destroy: jest.fn() };
  return { body, req: body as unknown as IncomingMessage, res, asResponse: res as unknown as ServerResponse };
}

describe('endAfterBody', () => {
  beforeEach(() => {
    // Stream events still run (nextTick, setImmediate); only the deadline timer is fake.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('ends the response when the body ends, having read and dropped the rest of it', async () => {
    const { body, req, res, asResponse } = standIns();
    endAfterBody(req, asResponse, 1_000);
    body.write(Buffer.alloc(100_000));
    expect(res.end).not.toHaveBeenCalled();

    body.end(Buffer.alloc(100_000));
    await once(body, 'end');
    expect(res.end).toHaveBeenCalledTimes(1);
    expect(req.readableLength).toBe(0);

    jest.advanceTimersByTime(1_000);
    expect(res.destroy).not.toHaveBeenCalled();
  });

  it('ends at once when the body has already ended', async () => {
    const { body, req, res, asResponse } = standIns();
    body.resume();
    body.end('x');
    await once(body, 'end');

    endAfterBody(req, asResponse, 1_000);
    expect(res.end).toHaveBeenCalledTimes(1);
  });

  it('destroys the connection at the deadline when the body never ends', () => {
    const { body, req, res, asResponse } = standIns();
    endAfterBody(req, asResponse, 1_000);
    body.write('still sending');

    jest.advanceTimersByTime(999);
    expect(res.destroy).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(res.destroy).toHaveBeenCalledTimes(1);
    expect(res.end).not.toHaveBeenCalled();
  });

  it('forgets the deadline when the client goes away first', async () => {
    const { body, req, res, asResponse } = standIns();
    endAfterBody(req, asResponse, 1_000);
    body.destroy();
    await once(body, 'close');

    jest.advanceTimersByTime(1_000);
    expect(res.destroy).not.toHaveBeenCalled();
    expect(res.end).not.toHaveBeenCalled();
    expect(body.listenerCount('end')).toBe(0);
  });
});
