import { prefixOf } from './code-points.js';
import { OPERATORS, type OperatorSpec } from './operators.js';
import { encodeReserved, encodeUnreserved } from './pct-encoding.js';
import type { ExpressionPart, TemplatePart, VarSpec } from './template-ast.js';

type Scalar = string | number | boolean | bigint;
const isScalar = (value: unknown): value is Scalar => ['string', 'number', 'boolean', 'bigint'].includes(typeof value);
/** A variable's value after normalisation: an RFC 6570 string, list or associative array. */
type Value =
  | { readonly kind: 'string'; readonly text: string }
  | { readonly kind: 'list'; readonly items: string[] }
  | { readonly kind: 'pairs'; readonly pairs: [string, string][] };

/**
 * Expands parsed template parts (the algorithm of RFC 6570 appendix A). `undefined`, `null`,
 * empty lists and empty objects are undefined variables; numbers, booleans and bigints are
 * written as strings; only the object's own properties are read.
 * @throws Error for a nested composite value, a prefix on a composite value, or a value that
 *   is not well-formed Unicode
 */
export function expandParts(parts: readonly TemplatePart[], variables: Readonly<Record<string, unknown>>): string {
  let out = '';
  for (const part of parts) out += part.kind === 'literal' ? part.value : expandExpression(part, variables);
  return out;
}

function expandExpression(expression: ExpressionPart, variables: Readonly<Record<string, unknown>>): string {
  const spec = OPERATORS[expression.operator];
  const pieces: string[] = [];
  for (const varSpec of expression.variables) {
    // Own properties only: `{constructor}` must not expand Object.prototype.constructor.
    const value = normalise(varSpec.name, Object.hasOwn(variables, varSpec.name) ? variables[varSpec.name] : undefined);
    if (value !== undefined) pieces.push(expandVariable(varSpec, value, spec));
  }
  return pieces.length === 0 ? '' : spec.first + pieces.join(spec.sep);
}

function expandVariable(varSpec: VarSpec, value: Value, spec: OperatorSpec): string {
  const encode = spec.allowReserved ? encodeReserved : encodeUnreserved;
  const named = (name: string, encoded: string): string => (encoded === '' ? name + spec.ifemp : `${name}=${encoded}`);
  if (value.kind === 'string') {
    const text = varSpec.maxLength === undefined ? value.text : prefixOf(value.text, varSpec.maxLength);
    return spec.named ? named(varSpec.name, encode(text)) : encode(text);
  }
  if (varSpec.maxLength !== undefined) {
    throw new Error(`Variable '${varSpec.name}' has a prefix modifier but a list or object value`);
  }
  if (!varSpec.explode) {
    // Unexploded composites are comma-joined whatever the operator: `a,b` or `key,value`.
    const joined =
      value.kind === 'list'
        ? value.items.map(encode).join(',')
        : value.pairs.map(([key, item]) => `${encode(key)},${encode(item)}`).join(',');
    return spec.named ? named(varSpec.name, joined) : joined;
  }
  if (value.kind === 'list') {
    const items = value.items.map(encode);
    return (spec.named ? items.map((item) => named(varSpec.name, item)) : items).join(spec.sep);
  }
  return value.pairs
    .map(([key, item]) => (spec.named ? named(encode(key), encode(item)) : `${encode(key)}=${encode(item)}`))
    .join(spec.sep);
}

function normalise(name: string, value: unknown): Value | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    const items = value.filter((item) => item !== undefined && item !== null).map((item) => scalar(name, item));
    return items.length === 0 ? undefined : { kind: 'list', items };
  }
  if (typeof value === 'object') {
    const pairs = Object.entries(value)
      .filter(([, item]) => item !== undefined && item !== null)
      .map(([key, item]): [string, string] => [key, scalar(name, item)]);
    return pairs.length === 0 ? undefined : { kind: 'pairs', pairs };
  }
  return { kind: 'string', text: scalar(name, value) };
}

function scalar(name: string, value: unknown): string {
  if (isScalar(value)) return String(value);
  throw new Error(`Variable '${name}' must be a string, number, boolean, list or object of those`);
}
