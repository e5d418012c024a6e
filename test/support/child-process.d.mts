import type { ChildProcess } from 'node:child_process';

/** Stops `child`; one that has not exited 5 s after `signal` is killed. */
export function stopChild(child: ChildProcess, signal?: NodeJS.Signals): Promise<void>;
