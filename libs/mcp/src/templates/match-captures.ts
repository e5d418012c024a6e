import { fitsPrefix, prefixOf } from './code-points.js';
import type { VarSpec } from './template-ast.js';

/** Extracted variables: strings, or arrays for exploded variables. */
export type UriVariables = Record<string, string | string[]>;

interface Capture {
  readonly value: string | string[];
  /** Set when read through a prefix modifier (`{var:3}`): the value may be the full one's start. */
  readonly maxLength?: number;
}

/**
 * The variables read so far in one match. A variable may occur more than once in a template
 * (`/{hash:2}/{hash}`); its occurrences must agree, a prefixed one with the start of the full
 * one, or the URI does not match.
 */
export class MatchCaptures {
  // A Map, not an object: variable names such as `__proto__` are valid in RFC 6570.
  private readonly captures = new Map<string, Capture>();

  /** Records one occurrence; false when it contradicts an earlier one or its prefix length. */
  add(variable: VarSpec, value: string | string[]): boolean {
    const capture: Capture = { value, maxLength: variable.maxLength };
    if (capture.maxLength !== undefined && !fitsPrefix(value as string, capture.maxLength)) return false;
    const earlier = this.captures.get(variable.name);
    if (earlier === undefined) {
      this.captures.set(variable.name, capture);
      return true;
    }
    const kept = reconcile(earlier, capture);
    if (kept === undefined) return false;
    this.captures.set(variable.name, kept);
    return true;
  }

  toRecord(): UriVariables {
    // fromEntries defines own properties, so `__proto__` stays a plain key.
    return Object.fromEntries([...this.captures].map(([name, capture]) => [name, capture.value]));
  }
}

/** The capture to keep when both describe the same value, otherwise `undefined`. */
function reconcile(a: Capture, b: Capture): Capture | undefined {
  if (typeof a.value !== 'string' || typeof b.value !== 'string') {
    return sameList(a.value, b.value) ? a : undefined;
  }
  if (a.maxLength === undefined && b.maxLength === undefined) return a.value === b.value ? a : undefined;
  // The longer-limited (or unlimited) capture must start with the other one.
  const [short, long] = (a.maxLength ?? Infinity) <= (b.maxLength ?? Infinity) ? [a, b] : [b, a];
  return prefixOf(long.value as string, short.maxLength ?? Infinity) === short.value ? long : undefined;
}

function sameList(a: string | string[], b: string | string[]): boolean {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => item === b[i]);
}
