/**
 * A child process whose output (stdout and stderr together) is collected line by line, with a
 * wait for a line that matches. Waits are on output and process events; the timeout is only
 * the bound after which a missing line fails the test with the output so far.
 */
import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio } from 'node:child_process';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WatchedProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every complete line so far, stdout and stderr interleaved as they arrived. */
  readonly lines: string[];
  /** Resolves when the process has exited and its streams are closed. */
  exited: Promise<ProcessExit>;
  /** The first line (at index >= `from`) matching `pattern`; rejects on exit or after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs?: number, from?: number): Promise<{ match: RegExpMatchArray; index: number }>;
  /** SIGTERM (SIGKILL when it does not exit within `timeoutMs`), then the exit. */
  stop(timeoutMs?: number): Promise<ProcessExit>;
}

export function watchProcess(command: string, args: string[], options: SpawnOptionsWithoutStdio = {}): WatchedProcess {
  const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let hasExited = false;
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once('close', (code, signal) => {
      hasExited = true;
      resolve({ code, signal });
      for (const wake of [...waiters]) wake();
    }),
  );
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      const complete = pending.split('\n');
      pending = complete.pop() ?? '';
      if (complete.length === 0) return;
      lines.push(...complete);
      for (const wake of [...waiters]) wake();
    });
    stream.on('end', () => pending && lines.push(pending));
  }
  child.stdin.on('error', () => undefined);

  const waitForLine = (pattern: RegExp, timeoutMs = 60_000, from = 0) =>
    new Promise<{ match: RegExpMatchArray; index: number }>((resolve, reject) => {
      const describe = () => `output so far:\n${lines.join('\n')}`;
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; ${describe()}`));
      }, timeoutMs);
      function check() {
        for (let index = from; index < lines.length; index++) {
          const match = lines[index].match(pattern);
          if (match) {
            waiters.delete(check);
            clearTimeout(timer);
            return resolve({ match, index });
          }
        }
        if (hasExited) {
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`the process exited without a line matching ${pattern}; ${describe()}`));
        }
      }
      waiters.add(check);
      check();
    });

  const stop = async (timeoutMs = 10_000) => {
    if (!hasExited) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const exit = await exited;
    clearTimeout(timer);
    return exit;
  };

  return {
    child,
    lines,
    exited,
    waitForLine,
    stop,
  };
}
