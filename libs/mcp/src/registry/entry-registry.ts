import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { KeyedCollection, type Page } from './keyed-collection.js';

/** What every registry entry says about where it was declared. */
export interface DeclaredEntry {
  /** `Class.method` (or the runtime service) that declared it, for error messages. */
  readonly source: string;
}

/**
 * The shape shared by the tool, prompt, resource and template registries: entries by exact,
 * case-sensitive key in a `Map`, keyset-paginated, duplicates refused with an error that names
 * both declarations.
 */
export abstract class EntryRegistry<T extends DeclaredEntry> {
  protected readonly entries = new KeyedCollection<T>();
  private readonly counters: { readonly matches: (entry: T) => boolean; value: number }[] = [];

  /** The key of an entry (tool name, URI, template...). */
  protected abstract keyOf(entry: T): string;

  /** The message for a second entry with the key of `existing`. */
  protected abstract duplicate(entry: T, existing: T): string;

  /** Rejects entries that cannot be served (an invalid name, a URI without scheme). */
  protected validate(_entry: T): void {}

  /** Adds an entry; an invalid or duplicate one is a definition error naming its source. */
  register(entry: T): void {
    this.validate(entry);
    const key = this.keyOf(entry);
    const existing = this.entries.get(key);
    if (existing) throw new McpDefinitionError(this.duplicate(entry, existing));
    this.entries.set(key, entry);
    for (const counter of this.counters) if (counter.matches(entry)) counter.value++;
  }

  unregister(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry || !this.entries.delete(key)) return false;
    for (const counter of this.counters) if (counter.matches(entry)) counter.value--;
    return true;
  }

  /**
   * A live count of the entries `matches` keeps (those registered already included), kept up to
   * date on every register and unregister: a feature asks it per request to skip its work while
   * it has nothing to do.
   */
  counter(matches: (entry: T) => boolean): () => number {
    const counter = { matches, value: 0 };
    for (const entry of this.entries.values()) if (matches(entry)) counter.value++;
    this.counters.push(counter);
    return () => counter.value;
  }

  get(key: string): T | undefined {
    return this.entries.byKey.get(key);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Every entry, in no particular order. */
  values(): Iterable<T> {
    return this.entries.values();
  }

  /** A page of entries; with `filter`, of the entries it keeps only. */
  page(cursor: unknown, pageSize: number, filter?: (entry: T) => boolean): Page<T> {
    return this.entries.page(cursor, pageSize, filter);
  }
}
