import { randomBytes } from 'node:crypto';

/** One message of a session's standalone stream, with its event id. */
export interface OutboxEntry {
  readonly eventId: string;
  readonly seq: number;
  readonly message: object;
}

/**
 * The bounded replay buffer of one session's standalone stream (DECISIONS D5).
 *
 * Event ids are `g:<epoch>:<seq>`: `g` names the GET stream, the random epoch makes the id
 * space private to this session (an id of another session is simply unknown here), and the
 * sequence orders the events. When full, the oldest entry is dropped; a client that comes back
 * with a dropped id gets a resync instead of a replay.
 */
export class SessionOutbox {
  private readonly epoch = randomBytes(6).toString('base64url');
  private readonly entries: OutboxEntry[] = [];
  private seq = 0;

  constructor(private readonly capacity: number) {}

  /** Records a message and returns its entry. */
  append(message: object): OutboxEntry {
    this.seq += 1;
    const entry: OutboxEntry = { eventId: `g:${this.epoch}:${this.seq}`, seq: this.seq, message };
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.shift();
    return entry;
  }

  /**
   * The entries after `lastEventId`, or `undefined` when the id is not one of this session's
   * (foreign, malformed, or already dropped from the buffer).
   */
  after(lastEventId: string): OutboxEntry[] | undefined {
    const seq = this.parse(lastEventId);
    if (seq === undefined) return undefined;
    const oldest = this.entries[0]?.seq ?? this.seq + 1;
    if (seq < oldest - 1 || seq > this.seq) return undefined;
    return this.entries.filter((entry) => entry.seq > seq);
  }

  get size(): number {
    return this.entries.length;
  }

  private parse(eventId: string): number | undefined {
    const prefix = `g:${this.epoch}:`;
    if (!eventId.startsWith(prefix)) return undefined;
    const seq = Number(eventId.slice(prefix.length));
    return Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined;
  }
}
