import { jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { onClientDeparture, stopWatchingDeparture } from './client-departure.js';

const requestOn = (socket: EventEmitter & { destroyed?: boolean }) => ({ socket });

describe('onClientDeparture', () => {
  it('tells every request still watched on a connection when it closes, through one listener', () => {
    const socket = new EventEmitter();
    const first = jest.fn();
    const second = jest.fn();
    const third = jest.fn();
    const watch = onClientDeparture(requestOn(socket), first);
    expect(watch).toBeDefined();
    expect(onClientDeparture(requestOn(socket), second)).toBe(watch);
    expect(onClientDeparture(requestOn(socket), third)).toBe(watch);
    expect(socket.listenerCount('close')).toBe(1);

    stopWatchingDeparture(watch!, second);
    socket.emit('close');

    expect(first).toHaveBeenCalledTimes(1);
    expect(second).not.toHaveBeenCalled();
    expect(third).toHaveBeenCalledTimes(1);
    expect(socket.listenerCount('close')).toBe(0);
    // Stopping after the close is harmless.
    stopWatchingDeparture(watch!, first);
  });

  it('keeps one listener on a keep-alive connection whose requests come one after the other', () => {
    const socket = new EventEmitter();
    const calls: string[] = [];
    for (let i = 0; i < 5; i++) {
      const left = () => calls.push(`request ${i}`);
      stopWatchingDeparture(onClientDeparture(requestOn(socket), left)!, left);
    }
    const last = jest.fn();
    onClientDeparture(requestOn(socket), last);
    expect(socket.listenerCount('close')).toBe(1);
    socket.emit('close');
    expect(calls).toEqual([]);
    expect(last).toHaveBeenCalledTimes(1);
  });

  it('a callback that stops watching while the close is told does not disturb the others', () => {
    const socket = new EventEmitter();
    const other = jest.fn();
    const selfStopping = jest.fn(() => stopWatchingDeparture(socket, selfStopping));
    onClientDeparture(requestOn(socket), selfStopping);
    onClientDeparture(requestOn(socket), other);
    socket.emit('close');
    expect(selfStopping).toHaveBeenCalledTimes(1);
    expect(other).toHaveBeenCalledTimes(1);
  });

  it('a connection closed already tells the caller after it returns, never synchronously', async () => {
    const socket = Object.assign(new EventEmitter(), { destroyed: true });
    const left = jest.fn();
    expect(onClientDeparture(requestOn(socket), left)).toBe(socket);
    expect(left).not.toHaveBeenCalled();
    await Promise.resolve();
    expect(left).toHaveBeenCalledTimes(1);
    expect(socket.listenerCount('close')).toBe(0);
  });

  it('watches nothing for a request without a connection', () => {
    const left = jest.fn();
    expect(onClientDeparture(undefined, left)).toBeUndefined();
    expect(onClientDeparture({}, left)).toBeUndefined();
    expect(onClientDeparture({ socket: {} }, left)).toBeUndefined();
    expect(left).not.toHaveBeenCalled();
  });
});
