/**
 * What every server under test serves, so that all four answer the same requests the same way.
 *
 * - tool `echo` `{ text }`: answers `{ content: [{ type: 'text', text }] }`;
 * - text resource `mem://counter`: the counter's value;
 * - tool `bump`: increments the counter and sends `notifications/resources/updated` to the
 *   sessions subscribed to `mem://counter`; answers `{ counter, reached }` as JSON text;
 * - tool `barrier`: sends `notifications/resources/list_changed` to every open stream (the bench
 *   uses it to prove that no unsubscribed session got the update: one stream is ordered);
 * - `BENCH_RESOURCES=<n>`: n runtime text resources `mem://r/<i>` whose text is `resource <i>`.
 */
export const COUNTER_URI = 'mem://counter';
/** A URI nobody subscribes to (for the "notify with no subscribers" cost). */
export const NOBODY_URI = 'mem://nobody';
export const resourceUri = (i: number): string => `mem://r/${i}`;
export const resourceText = (i: number): string => `resource ${i}`;

/** Runtime resources to register at startup (`BENCH_RESOURCES`). */
export const resourcesToRegister = (): number => Math.max(0, Math.floor(Number(process.env.BENCH_RESOURCES ?? 0)));

export const SERVER_INFO = { name: 'bench-fixture', version: '1.0.0' };
