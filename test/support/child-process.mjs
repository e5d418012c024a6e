/**
 * Stopping a child process for good (plain JavaScript, types in child-process.d.mts: global
 * setups load it natively, outside Jest's transform).
 */

/** Stops `child`; one that has not exited 5 s after `signal` is killed. */
export function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
