import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { pathIn } from '../connection/request-path.js';

type Key = string | symbol;

/** The properties to add ahead of Express, per object, learned from a routed request. */
interface Shape {
  req: Key[];
  res: Key[];
}

/**
 * Gives the requests to the MCP paths the own properties Express (its router, Nest's, the body
 * parsers, the application's middleware) will add to them, before Express sees them.
 *
 * Why: Express re-prototypes every request and response (`Object.setPrototypeOf`) and then adds
 * properties to them (`res.locals`, `req.next`, `req.params`, ... and Node's own `statusCode`,
 * which lives on the prototype until it is first written). V8 gives an object that gains a
 * property after its prototype changed a hidden class of its own: two per request (about 1 KB
 * each with their descriptors), allocated straight in the old generation. For the requests that
 * end they are old-generation garbage; for a GET held as an event stream they live as long as it.
 * Added before the prototype changes, the same properties make hidden classes every request
 * shares, and Express's later writes only change values.
 *
 * Only what the first routed request of a method had as its own data properties is added, each
 * set to what reading it gave before (undefined, or the Node prototype's default such as
 * `statusCode` 200), and never a name the routed request's prototypes (Express's) define: what
 * any code reads is what it read before. A property that is not learned is added later, as today.
 */
export class ExpressRequestShapes {
  private readonly shapes = new Map<string, Shape>();
  private readonly paths = new Set<string>();

  /** Adds `paths` to those whose requests are shaped ahead of Express on `server`. */
  install(server: Server, paths: ReadonlySet<string>): void {
    const first = this.paths.size === 0;
    for (const path of paths) this.paths.add(path);
    if (first) server.prependListener('request', this.shapeAhead);
  }

  /** Learns the shape of a request routed to an MCP path (the first per method). */
  learn(req: IncomingMessage, res: ServerResponse): void {
    const method = req.method ?? '';
    if (this.shapes.has(method)) return;
    this.shapes.set(method, { req: addedKeys(req), res: addedKeys(res) });
  }

  private readonly shapeAhead = (req: IncomingMessage, res: ServerResponse): void => {
    const shape = this.shapes.get(req.method ?? '');
    if (!shape || pathIn(req.url, this.paths) === undefined) return;
    preAdd(req, shape.req);
    preAdd(res, shape.res);
  };
}

/**
 * The own data properties of a routed `target` that a fresh object of its Node class does not
 * have and no prototype above Node's defines (those are Express's, which an own property would
 * hide).
 */
function addedKeys(target: object): Key[] {
  const nodePrototype = nodePrototypeOf(target);
  const keys: Key[] = [];
  for (const key of Reflect.ownKeys(target)) {
    const own = Reflect.getOwnPropertyDescriptor(target, key);
    if (!own || !('value' in own) || !own.writable || !own.enumerable) continue;
    if (definedAbove(target, nodePrototype, key) || isAccessorIn(nodePrototype, key)) continue;
    keys.push(key);
  }
  return keys;
}

/** The first prototype of `target` that is Node's own (not one Express put above it). */
function nodePrototypeOf(target: object): object | null {
  let proto = Object.getPrototypeOf(target) as object | null;
  while (proto && !Object.prototype.hasOwnProperty.call(proto, 'constructor')) {
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return proto;
}

/** Whether a prototype between `target` and Node's prototype defines `key`. */
function definedAbove(target: object, nodePrototype: object | null, key: Key): boolean {
  for (let proto = Object.getPrototypeOf(target) as object | null; proto && proto !== nodePrototype;) {
    if (Object.prototype.hasOwnProperty.call(proto, key)) return true;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return false;
}

/** Whether `key` is a getter or setter on `proto` or its prototypes (writing it would run code). */
function isAccessorIn(proto: object | null, key: Key): boolean {
  for (; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    const descriptor = Reflect.getOwnPropertyDescriptor(proto, key);
    if (descriptor) return !('value' in descriptor);
  }
  return false;
}

function preAdd(target: object, keys: readonly Key[]): void {
  const record = target as Record<Key, unknown>;
  for (const key of keys) {
    if (Object.prototype.hasOwnProperty.call(target, key)) continue;
    // What reading it gives now: undefined, or the default of Node's prototype.
    const value = record[key];
    record[key] = value;
  }
}
