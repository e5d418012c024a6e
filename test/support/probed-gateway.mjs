/**
 * Runs the built reference gateway (`dist/src/main.js`, with this process's arguments, so
 * `--stdio` works) and answers its parent's probes over the IPC channel, which is neither stdin,
 * stdout nor the network: the parent can measure the server while a client misbehaves on them.
 *
 * Parent -> child: `{ id, cmd: 'probe' }`; child -> parent: `{ id, memory, stdinFlowing,
 * stdoutBacklog }` after a full garbage collection when `--expose-gc` is on.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const STDIO = process.argv.includes('--stdio');
const ENTRY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'src', 'main.js');

process.on('message', (message) => {
  if (message?.cmd !== 'probe') return;
  globalThis.gc?.();
  process.send?.({
    id: message.id,
    memory: process.memoryUsage(),
    // Only in stdio mode: touching process.stdin would start a stream the HTTP server never uses.
    stdinFlowing: STDIO ? process.stdin.readableFlowing : undefined,
    stdoutBacklog: STDIO ? process.stdout.writableLength : undefined,
  });
});
// The parent going away ends the server too.
process.on('disconnect', () => process.exit(0));

await import(pathToFileURL(ENTRY).href);
