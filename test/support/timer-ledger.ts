/**
 * The timers created while the ledger is installed, and which are still live (not cleared, a
 * timeout not yet fired): for checking that whatever lives long stops its timers when it ends.
 * Node leaves unref'd timers out of `process.getActiveResourcesInfo()`, and the library unrefs
 * its own, so the global timer functions are wrapped instead (library code calls the globals of
 * the test's context). Timers Node creates internally (sockets, HTTP) are not seen.
 */
type TimerKind = 'timeout' | 'interval';

interface LiveTimer {
  readonly kind: TimerKind;
  readonly delay: number;
}

type AnyFn = (...args: unknown[]) => unknown;

export class TimerLedger {
  private readonly live = new Map<unknown, LiveTimer>();
  private restore?: () => void;

  install(): void {
    if (this.restore) return;
    const scope = globalThis as unknown as Record<string, AnyFn>;
    const original = {
      setTimeout: scope.setTimeout,
      setInterval: scope.setInterval,
      clearTimeout: scope.clearTimeout,
      clearInterval: scope.clearInterval,
    };
    const live = this.live;
    scope.setTimeout = (callback: unknown, delay?: unknown, ...args: unknown[]) => {
      const handle = original.setTimeout(
        (...callArgs: unknown[]) => {
          live.delete(handle);
          (callback as AnyFn)(...callArgs);
        },
        delay,
        ...args,
      );
      live.set(handle, { kind: 'timeout', delay: Number(delay ?? 0) });
      return handle;
    };
    scope.setInterval = (callback: unknown, delay?: unknown, ...args: unknown[]) => {
      const handle = original.setInterval(callback, delay, ...args);
      live.set(handle, { kind: 'interval', delay: Number(delay ?? 0) });
      return handle;
    };
    scope.clearTimeout = (handle: unknown) => {
      live.delete(handle);
      return original.clearTimeout(handle);
    };
    scope.clearInterval = (handle: unknown) => {
      live.delete(handle);
      return original.clearInterval(handle);
    };
    this.restore = () => Object.assign(scope, original);
  }

  uninstall(): void {
    this.restore?.();
    this.restore = undefined;
    this.live.clear();
  }

  /** Live timers of `kind` whose delay satisfies `delay`. */
  count(kind: TimerKind, delay: (ms: number) => boolean): number {
    let count = 0;
    for (const timer of this.live.values()) if (timer.kind === kind && delay(timer.delay)) count++;
    return count;
  }
}
