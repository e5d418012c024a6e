/** Sessions remembered at once, at most; the memory is dropped whole past it. */
const CAPACITY = 10_000;

/**
 * Which sessions had a standalone stream held by another instance when last read (from the
 * session hash on every access). `McpLiveStreams.send` answers synchronously, so it decides from
 * this whether a message can reach the client through the session's outbox.
 */
export class RemoteHolders {
  private readonly held = new Set<string>();

  note(sessionId: string, heldElsewhere: boolean): void {
    if (!heldElsewhere) {
      this.held.delete(sessionId);
      return;
    }
    if (this.held.size >= CAPACITY) this.held.clear();
    this.held.add(sessionId);
  }

  has(sessionId: string): boolean {
    return this.held.has(sessionId);
  }

  forget(sessionId: string): void {
    this.held.delete(sessionId);
  }
}
