import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SkillsFolderWatcher } from './skills-folder.watcher.js';

/** A promise the test settles itself. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const DEBOUNCE_MS = 100;

describe('SkillsFolderWatcher', () => {
  let calls: number;
  let running: number;
  let mostAtOnce: number;
  let hold: ReturnType<typeof gate> | undefined;
  let watcher: SkillsFolderWatcher;
  /** What the file system's events call (the test stands in for `node:fs` `watch`). */
  const fsEvent = () => (watcher as unknown as { changed(): void }).changed();
  /** Lets the promise callbacks settled so far run. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };

  beforeEach(() => {
    jest.useFakeTimers();
    calls = running = mostAtOnce = 0;
    hold = undefined;
    watcher = new SkillsFolderWatcher(
      async () => {
        calls++;
        mostAtOnce = Math.max(mostAtOnce, ++running);
        await hold?.promise;
        running--;
      },
      () => undefined,
      DEBOUNCE_MS,
    );
  });

  afterEach(async () => {
    hold?.open();
    await watcher.close();
    jest.useRealTimers();
  });

  it('acts once a burst of changes has been quiet for the debounce time', () => {
    fsEvent();
    jest.advanceTimersByTime(DEBOUNCE_MS - 1);
    fsEvent();
    jest.advanceTimersByTime(DEBOUNCE_MS - 1);
    expect(calls).toBe(0);

    jest.advanceTimersByTime(1);
    expect(calls).toBe(1);
  });

  it('runs one reload at a time: changes seen during one start a single other after it', async () => {
    hold = gate();
    fsEvent();
    jest.advanceTimersByTime(DEBOUNCE_MS);
    expect(calls).toBe(1);

    fsEvent();
    fsEvent();
    jest.advanceTimersByTime(DEBOUNCE_MS * 3);
    expect(calls).toBe(1);

    hold.open();
    await settle();
    jest.advanceTimersByTime(DEBOUNCE_MS);
    expect(calls).toBe(2);
    expect(mostAtOnce).toBe(1);
  });

  it('close waits for a reload under way and starts none after it', async () => {
    hold = gate();
    fsEvent();
    jest.advanceTimersByTime(DEBOUNCE_MS);
    fsEvent();
    let closed = false;
    const closing = watcher.close().then(() => (closed = true));
    await settle();
    expect(closed).toBe(false);

    hold.open();
    await closing;
    fsEvent();
    jest.advanceTimersByTime(DEBOUNCE_MS * 2);
    expect(calls).toBe(1);
  });
});

describe('SkillsFolderWatcher.watch', () => {
  const openWatchers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length;
  /** A closed handle is released in the close phase of the loop turn: two setImmediate turns are past it. */
  const afterClosePhase = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'skills-watcher-'));
  });
  afterEach(() => rm(folder, { recursive: true, force: true }));

  it('closes the watchers it opened when a later folder cannot be watched', async () => {
    const before = openWatchers();
    const watcher = new SkillsFolderWatcher(
      async () => undefined,
      () => undefined,
    );

    expect(() => watcher.watch([folder, join(folder, 'missing')])).toThrow(/ENOENT/);

    await afterClosePhase();
    expect(openWatchers()).toBe(before);
  });
});
