import { Redis } from 'ioredis';

/**
 * The command connection of an instance: every command sent during one turn of the event loop
 * leaves in one socket write, flushed when the turn's I/O callbacks are done (`setImmediate`).
 *
 * Why: under load an instance reads several HTTP requests in one turn (one per ready socket),
 * and each looks its session up in Redis. Written one by one, that is one `write` system call
 * per request here and one `read` per request in Redis; corked, it is one of each per turn.
 * ioredis's own auto-pipelining batches per turn too, but builds a pipeline object per batch and
 * keeps one batch in flight at a time (the next waits for the previous one's replies): measured
 * with `npm run bench` (the Redis echo row), it cost the gateway more CPU than it saved.
 *
 * A command waits at most until the end of the current turn: Node never blocks in poll while
 * an immediate is pending. Commands sent with their own stream (pipelines, MULTI) already share
 * one write and are left alone, and so is anything sent before the connection is ready (ioredis
 * queues it). A connection lost while corked loses nothing ioredis would have kept: its unsent
 * commands fail or are retried exactly as if they had been written.
 */
export class TurnBatchedRedis extends Redis {
  private corked = false;

  override sendCommand(...args: Parameters<Redis['sendCommand']>): unknown {
    if (!this.corked && args[1] === undefined && this.status === 'ready') this.corkForThisTurn();
    return super.sendCommand(...args);
  }

  private corkForThisTurn(): void {
    const socket = this.stream;
    socket.cork();
    this.corked = true;
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }
}
