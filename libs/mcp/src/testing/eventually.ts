/**
 * Resolves once `condition()` holds, checked every 10 ms for at most 5 s: for the contract
 * suites' expiries, which a store reaches on its own clock (a Redis TTL, a sweep).
 * @param what names the awaited state in the error thrown when it never comes
 */
export async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within 5000 ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
