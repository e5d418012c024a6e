import { EntryRegistry, type DeclaredEntry } from './entry-registry.js';
import type { McpHandlerFn } from '../context/mcp-handler.types.js';

/** An entry that may offer completion for some of its arguments or variables. */
interface CompletingEntry extends DeclaredEntry {
  readonly completers?: ReadonlyMap<string, McpHandlerFn>;
}

/**
 * A registry that knows, without a search, whether any of its entries offers completion: the
 * count is kept on register and unregister, so `completion/complete` and the capability check
 * cost nothing per request.
 */
export abstract class CompletingRegistry<T extends CompletingEntry> extends EntryRegistry<T> {
  private completing = 0;

  override register(entry: T): void {
    super.register(entry);
    if (entry.completers?.size) this.completing++;
  }

  override unregister(key: string): boolean {
    const entry = this.get(key);
    if (!super.unregister(key)) return false;
    if (entry?.completers?.size) this.completing--;
    return true;
  }

  /** True when any entry offers completion. */
  get hasCompleters(): boolean {
    return this.completing > 0;
  }
}
