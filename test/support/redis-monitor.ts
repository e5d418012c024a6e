/**
 * What Redis runs, as MONITOR shows it: every command of every client, the commands a Lua
 * script runs among them (source `lua`), with their arguments, in the order Redis ran them. For
 * tests that assert what a script read or wrote, or how a list was split into calls, without
 * timing anything. Use it on a `redis-server` of the test's own (MONITOR costs the server).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { within } from './http-wire.js';

/** One command Redis ran: its arguments (the name first) and who ran it. */
export interface MonitoredCommand {
  readonly args: string[];
  /** `lua` for a command a script ran, else the client's address. */
  readonly source: string;
}

export interface RedisWatch {
  /** What Redis ran since the watch started. */
  readonly commands: MonitoredCommand[];
  /** Waits until Redis ran everything sent before this call, then stops watching (again: nothing). */
  stop(): Promise<MonitoredCommand[]>;
}

/** Starts watching the server at `url`. */
export async function watchRedis(url: string): Promise<RedisWatch> {
  // Gives up instead of reconnecting for ever, and is closed on every path (stop, or a failed start).
  const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  let monitor: Redis;
  try {
    monitor = await client.monitor();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  const commands: MonitoredCommand[] = [];
  const token = `barrier-${randomBytes(4).toString('hex')}`;
  let seen!: () => void;
  const barrier = new Promise<void>((resolve) => (seen = resolve));
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args[0]?.toLowerCase() === 'echo' && args[1] === token) seen();
    else commands.push({ args, source });
  });
  let stopped = false;
  return {
    commands,
    async stop() {
      if (stopped) return commands;
      stopped = true;
      try {
        // MONITOR shows commands in the order Redis ran them: once the barrier shows, all earlier ones did.
        await client.echo(token);
        await within(barrier, 5_000, 'MONITOR showing the barrier');
      } finally {
        monitor.disconnect();
        client.disconnect();
      }
      return commands;
    },
  };
}

/** The commands scripts ran while `work` ran. */
export async function scriptCommands(url: string, work: () => Promise<unknown>): Promise<string[][]> {
  const watch = await watchRedis(url);
  try {
    await work();
  } finally {
    await watch.stop();
  }
  return watch.commands.filter((command) => command.source === 'lua').map((command) => command.args);
}

/** How MONITOR writes an argument: C escapes for backslashes, quotes and control characters. */
const asMonitorShowsIt = (text: string): string =>
  text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');

/**
 * The calls of the Lua script `lua` among `commands` (EVALSHA, or EVAL: ioredis sends the script
 * itself the first time a connection runs it), as the arguments after the declared keys.
 */
export function callsOfScript(commands: readonly MonitoredCommand[], lua: string): string[][] {
  const sha = createHash('sha1').update(lua).digest('hex');
  const shown = asMonitorShowsIt(lua);
  return commands
    .filter(({ args: [name, script] }) => {
      const command = name.toLowerCase();
      return (command === 'evalsha' && script === sha) || (command === 'eval' && script === shown);
    })
    .map(({ args }) => args.slice(3 + Number(args[2])));
}
