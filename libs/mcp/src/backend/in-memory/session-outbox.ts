import { randomBytes } from 'node:crypto';

/** One message of a session's standalone stream: its event id and its serialized JSON. */
export interface OutboxEntry {
  readonly eventId: string;
  readonly json: string;
}

/**
 * The bounded replay buffer of one session's standalone stream (docs/decisions/0004-sessions.md), a ring of the
 * last `capacity` serialized messages.
 *
 * Event ids are `g:<epoch>:<seq>`: `g` names the GET stream, the random epoch makes the id
 * space private to this session (an id of another session is simply unknown here), and the
 * sequence orders the events. A client that comes back with an id older than the ring gets a
 * resync instead of a replay.
 *
 * The ring grows as messages arrive, up to `capacity`: most sessions hold a few messages, and a
 * ring allocated at full size up front cost every session with a stream 2 KB (256 empty slots).
 */
export class SessionOutbox {
  private readonly prefix = `g:${randomBytes(6).toString('base64url')}:`;
  /** Message `seq` at `(seq - 1) % capacity`: appended in order until the ring is full. */
  private readonly ring: string[] = [];
  private seq = 0;

  constructor(private readonly capacity: number) {}

  /** Records a serialized message and returns its event id. */
  append(json: string): string {
    const slot = this.seq % this.capacity;
    this.seq += 1;
    if (slot === this.ring.length) this.ring.push(json);
    else this.ring[slot] = json;
    return this.prefix + this.seq;
  }

  /**
   * The entries after `lastEventId`, or `undefined` when the id is not one of this session's
   * (foreign, malformed, or already dropped from the ring).
   */
  after(lastEventId: string): OutboxEntry[] | undefined {
    const seq = this.parse(lastEventId);
    if (seq === undefined) return undefined;
    const oldest = Math.max(1, this.seq - this.capacity + 1);
    if (seq < oldest - 1 || seq > this.seq) return undefined;
    const entries: OutboxEntry[] = [];
    for (let next = seq + 1; next <= this.seq; next++) {
      entries.push({ eventId: this.prefix + next, json: this.ring[(next - 1) % this.capacity] });
    }
    return entries;
  }

  get size(): number {
    return Math.min(this.seq, this.capacity);
  }

  private parse(eventId: string): number | undefined {
    if (!eventId.startsWith(this.prefix)) return undefined;
    const seq = Number(eventId.slice(this.prefix.length));
    return Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined;
  }
}
