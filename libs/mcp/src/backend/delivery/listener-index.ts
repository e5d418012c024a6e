import type { McpListener, McpListKind } from '../mcp-fanout.js';
import { LIST_CHANGED_METHODS, RESOURCE_UPDATED } from './notification.messages.js';

/**
 * The modern listeners of one instance, indexed by what they asked for: URI → listeners and
 * list → listeners, so a notification costs O(its listeners), never O(all listeners). Every
 * `McpFanout` (in-memory, Redis) keeps one for the listens its instance holds.
 */
export class ListenerIndex {
  private readonly byUri = new Map<string, Set<McpListener>>();
  private readonly byList = new Map<McpListKind, Set<McpListener>>();
  private count = 0;

  /** Indexes a listener; the returned function removes it (idempotent). */
  add(listener: McpListener): () => void {
    for (const uri of listener.resources) addTo(this.byUri, uri, listener);
    for (const kind of listener.lists) addTo(this.byList, kind, listener);
    this.count++;
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      for (const uri of listener.resources) removeFrom(this.byUri, uri, listener);
      for (const kind of listener.lists) removeFrom(this.byList, kind, listener);
      this.count--;
    };
  }

  /** Listeners on this instance. */
  get size(): number {
    return this.count;
  }

  /** How many listeners here asked for `uri`. */
  countOf(uri: string): number {
    return this.byUri.get(uri)?.size ?? 0;
  }

  /** How many listeners here asked for changes of a list. */
  countOfList(kind: McpListKind): number {
    return this.byList.get(kind)?.size ?? 0;
  }

  /** Tells the listeners of `uri`; returns how many. */
  resourceUpdated(uri: string): number {
    return notifyAll(this.byUri.get(uri), RESOURCE_UPDATED, { uri });
  }

  /** Tells the listeners of a list; returns how many. */
  listChanged(kind: McpListKind): number {
    return notifyAll(this.byList.get(kind), LIST_CHANGED_METHODS[kind]);
  }
}

function notifyAll(listeners: Set<McpListener> | undefined, method: string, params?: Record<string, unknown>): number {
  if (!listeners) return 0;
  // A copy: a listener whose stream fails may remove itself while we iterate.
  for (const listener of [...listeners]) listener.notify(method, params);
  return listeners.size;
}

function addTo<K>(index: Map<K, Set<McpListener>>, key: K, listener: McpListener): void {
  let listeners = index.get(key);
  if (!listeners) index.set(key, (listeners = new Set()));
  listeners.add(listener);
}

function removeFrom<K>(index: Map<K, Set<McpListener>>, key: K, listener: McpListener): void {
  const listeners = index.get(key);
  if (!listeners?.delete(listener)) return;
  if (listeners.size === 0) index.delete(key);
}
