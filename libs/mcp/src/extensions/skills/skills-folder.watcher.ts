import { watch, type FSWatcher } from 'node:fs';

/** How long the folders must stay quiet before a change is acted on: an editor's save is several events. */
export const SKILLS_WATCH_DEBOUNCE_MS = 200;

/**
 * Watches skills folders (`node:fs` `watch`, recursive) and calls `onQuiet` once a burst of
 * changes has settled; never twice at once: changes seen while `onQuiet` runs call it again
 * when it is done. `onQuiet` handles its own failures (it must not reject). `close()` stops
 * everything (no handle stays open).
 */
export class SkillsFolderWatcher {
  private readonly watchers: FSWatcher[] = [];
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private pending = false;
  private closed = false;

  constructor(
    private readonly onQuiet: () => Promise<void>,
    private readonly onWatchError: (folder: string, error: Error) => void,
    private readonly debounceMs = SKILLS_WATCH_DEBOUNCE_MS,
  ) {}

  /**
   * Starts watching `folders`; a folder that cannot be watched throws (the start fails), after
   * closing the watchers already opened, since no shutdown hook runs for a failed start.
   */
  watch(folders: readonly string[]): void {
    try {
      for (const folder of folders) {
        // Persistent, as a server's sockets are: `close()` (at module shutdown) releases it.
        const watcher = watch(folder, { recursive: true }, () => this.changed());
        // A watched folder removed or unreadable: say so; the catalog keeps what it has.
        watcher.on('error', (error) => this.onWatchError(folder, error));
        this.watchers.push(watcher);
      }
    } catch (error) {
      for (const watcher of this.watchers.splice(0)) watcher.close();
      throw error;
    }
  }

  /** Stops watching; a reload under way finishes, none starts. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers.splice(0)) watcher.close();
    await this.running;
  }

  private changed(): void {
    if (this.closed) return;
    if (this.running) {
      this.pending = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), this.debounceMs);
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    if (this.closed) return;
    this.running = this.onQuiet().finally(() => {
      this.running = undefined;
      if (this.pending) {
        this.pending = false;
        this.changed();
      }
    });
  }
}
