import { MatchCaptures, type UriVariables } from './match-captures.js';
import type { ExpressionStep, MatchStep } from './match-plan.js';
import { decodeComponent } from './pct-encoding.js';
import type { VarSpec } from './template-ast.js';

/**
 * Matches a URI against planned steps in one left-to-right pass, without regular expressions
 * and without backtracking: each expression's end is decided once, from the step after it,
 * so the work is linear in the URI length (times the number of steps, fixed by the template).
 *
 * Where an expression ends:
 * - before a literal that ends the template: where that suffix starts;
 * - before any other literal: at the literal's first occurrence (leftmost: `{a}-{b}` reads
 *   `x-y-z` as `a=x`, `b=y-z`);
 * - before another expression: at its first stop character (`planMatch` guarantees the next
 *   expression starts with one);
 * - at the end of the template: at the end of the URI.
 * The span must hold none of the expression's stop characters, or the URI does not match.
 */
export function matchSteps(steps: readonly MatchStep[], uri: string): UriVariables | undefined {
  const captures = new MatchCaptures();
  let position = 0;
  for (let index = 0; index < steps.length; index++) {
    const step = steps[index];
    if (step.kind === 'literal') {
      if (!uri.startsWith(step.value, position)) return undefined;
      position += step.value.length;
      continue;
    }
    const end = expressionEnd(step, steps[index + 1], uri, position);
    if (end === undefined || !readExpression(step, uri.slice(position, end), captures)) return undefined;
    position = end;
  }
  return position === uri.length ? captures.toRecord() : undefined;
}

function expressionEnd(
  step: ExpressionStep,
  next: MatchStep | undefined,
  uri: string,
  from: number,
): number | undefined {
  const { stops } = step.spec;
  if (next?.kind === 'expression') return firstStop(uri, from, uri.length, stops);
  let end = uri.length;
  if (next !== undefined) end = next.last ? uri.length - next.value.length : uri.indexOf(next.value, from);
  if (end < from) return undefined;
  // Only the span itself is scanned, so no character is looked at twice by one expression.
  return firstStop(uri, from, end, stops) === end ? end : undefined;
}

/** Index of the first character of `stops` in `uri[from, limit)`, or `limit`. */
function firstStop(uri: string, from: number, limit: number, stops: string): number {
  if (stops === '') return limit;
  for (let i = from; i < limit; i++) if (stops.includes(uri[i])) return i;
  return limit;
}

/** Reads one expression's span into `captures`; false when the span cannot be its expansion. */
function readExpression(step: ExpressionStep, span: string, captures: MatchCaptures): boolean {
  // `{var}` and `{+var}` have no leading character, so an empty span would be an empty
  // variable: refuse it (`db://notes/` is no note). The others may be absent altogether.
  if (span === '') return step.leads !== '';
  if (step.leads !== '' && !step.leads.includes(span[0])) return false;
  const content = step.leads === '' ? span : span.slice(1);
  return step.spec.named ? readNamed(step, content, captures) : readPositional(step, content, captures);
}

/**
 * `{x,y}`, `{/path*}`, `{.a,b}`...: values in order, split on the operator's separator. Missing
 * trailing values leave their variables undefined; an exploded (last) variable takes the rest
 * as a list; surplus values go to the last variable when the separator is a comma (an
 * unexploded list expands comma-joined), otherwise the URI does not match.
 */
function readPositional(step: ExpressionStep, content: string, captures: MatchCaptures): boolean {
  const { variables, spec } = step;
  const items = content.split(spec.sep);
  for (let i = 0; i < variables.length && i < items.length; i++) {
    const variable = variables[i];
    const isLast = i === variables.length - 1;
    if (variable.explode) return addList(captures, variable, items.slice(i));
    if (isLast && items.length > variables.length && spec.sep !== ',') return false;
    const raw = isLast ? items.slice(i).join(spec.sep) : items[i];
    const value = decodeComponent(raw);
    if (value === undefined || !captures.add(variable, value)) return false;
  }
  return true;
}

/**
 * `{?a,b}`, `{;x}`, `{?tags*}`: `name=value` pairs in any order. An exploded variable collects
 * every pair with its name as a list; an unexploded one takes at most one pair. A pair whose
 * name the expression does not declare fails the match (exploded maps cannot be read back).
 */
function readNamed(step: ExpressionStep, content: string, captures: MatchCaptures): boolean {
  const declared = new Set(step.variables.map((variable) => variable.name));
  const found = new Map<string, string[]>();
  for (const item of content.split(step.spec.sep)) {
    if (item === '') continue;
    const equals = item.indexOf('=');
    const name = equals === -1 ? item : item.slice(0, equals);
    if (!declared.has(name)) return false;
    const values = found.get(name) ?? [];
    values.push(equals === -1 ? '' : item.slice(equals + 1));
    found.set(name, values);
  }
  for (const variable of step.variables) {
    const raws = found.get(variable.name);
    if (raws === undefined) continue;
    if (variable.explode) {
      if (!addList(captures, variable, raws)) return false;
      continue;
    }
    const value = raws.length === 1 ? decodeComponent(raws[0]) : undefined;
    if (value === undefined || !captures.add(variable, value)) return false;
  }
  return true;
}

function addList(captures: MatchCaptures, variable: VarSpec, raws: string[]): boolean {
  const values: string[] = [];
  for (const raw of raws) {
    const value = decodeComponent(raw);
    if (value === undefined) return false;
    values.push(value);
  }
  return captures.add(variable, values);
}
