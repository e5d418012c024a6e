import { StreamBacklog } from './stream-backlog.js';

const MiB = 1024 * 1024;

describe('StreamBacklog', () => {
  it('serves a backlog within the bound', () => {
    const backlog = new StreamBacklog(MiB);
    expect(backlog.admits(0, 100)).toBe(true);
    expect(backlog.admits(MiB, 100)).toBe(true);
  });

  it('serves one message larger than the bound, and small ones written while it drains', () => {
    const backlog = new StreamBacklog(MiB);
    expect(backlog.admits(3 * MiB, 3 * MiB)).toBe(true);
    // A ping's answer before the client read anything, then while it reads.
    expect(backlog.admits(3 * MiB + 40, 40)).toBe(true);
    expect(backlog.admits(2 * MiB + 80, 40)).toBe(true);
  });

  it('cuts off a client that leaves more than the bound unread besides that one message', () => {
    const backlog = new StreamBacklog(MiB);
    expect(backlog.admits(3 * MiB, 3 * MiB)).toBe(true);
    // A second large message while the first is unread.
    expect(backlog.admits(6 * MiB, 3 * MiB)).toBe(false);
  });

  it('cuts off a client that stops reading small messages just past the bound', () => {
    const backlog = new StreamBacklog(64 * 1024);
    let backlogBytes = 0;
    while (backlog.admits((backlogBytes += 7_000), 7_000));
    // Refused at the first write past the bound plus the message that crossed it.
    expect(backlogBytes).toBeGreaterThan(64 * 1024 + 7_000);
    expect(backlogBytes).toBeLessThanOrEqual(64 * 1024 + 2 * 7_000);
  });

  it('measures each episode by its own crossing message once the backlog drained', () => {
    const backlog = new StreamBacklog(MiB);
    expect(backlog.admits(3 * MiB, 3 * MiB)).toBe(true);
    expect(backlog.admits(0, 10)).toBe(true);
    // Over the bound again, this time crossed by a small message: no large allowance is left.
    expect(backlog.admits(MiB + 10, 20)).toBe(true);
    expect(backlog.admits(2 * MiB, 10)).toBe(false);
  });

  it.each([0, -1, 1.5, Number.POSITIVE_INFINITY])('refuses a bound of %p', (bound) => {
    expect(() => new StreamBacklog(bound)).toThrow(RangeError);
  });
});
