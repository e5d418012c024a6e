/**
 * Resolves once `condition()` holds, checked every 10 ms and bounded by `timeoutMs`: for state a
 * test cannot observe through an event (another process, another instance, a server-side
 * change). The failure names what did not happen.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
