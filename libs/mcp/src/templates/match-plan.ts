import { OPERATORS, type Operator, type OperatorSpec } from './operators.js';
import type { TemplatePart, VarSpec } from './template-ast.js';
import { UriTemplateError } from './uri-template.error.js';

/** A literal to find at the current position (or, when `last`, at the end of the URI). */
export interface LiteralStep {
  readonly kind: 'literal';
  readonly value: string;
  /** The template ends with this literal, so it anchors the end of the URI. */
  readonly last: boolean;
}

/** An expression (or a query group, see `planMatch`) to read from the current position. */
export interface ExpressionStep {
  readonly kind: 'expression';
  readonly spec: OperatorSpec;
  readonly variables: readonly VarSpec[];
  /** Characters the expansion may start with (its `first`); empty for `{var}` and `{+var}`. */
  readonly leads: string;
  /** How it reads in the template, for error messages. */
  readonly source: string;
}

/** What `matchSteps` walks through, in template order. */
export type MatchStep = LiteralStep | ExpressionStep;

/**
 * Turns parsed parts into matching steps, and rejects (at registration, not per request) the
 * templates whose matches would be ambiguous:
 * - two adjacent expressions, unless the second starts with a character the first can never
 *   contain (`{id}{?q}`, `{/path*}{#f}` pass; `{a}{b}`, `{a}{.b}`, `{/a}{/b}` do not);
 * - an exploded variable before another variable of the same positional expression (`{/a*,b}`).
 * A `{&...}` right after `{?...}` joins it as one query group (`{?a}{&b}` reads like `{?a,b}`),
 * since both write `name=value` pairs into the same query string.
 * @throws UriTemplateError
 */
export function planMatch(template: string, parts: readonly TemplatePart[]): MatchStep[] {
  const steps: MatchStep[] = [];
  parts.forEach((part, index) => {
    if (part.kind === 'literal') {
      steps.push({ kind: 'literal', value: part.value, last: index === parts.length - 1 });
      return;
    }
    const source = describe(part.operator, part.variables);
    const previous = steps.at(-1);
    if (part.operator === '&' && previous?.kind === 'expression' && previous.spec.sep === '&') {
      steps[steps.length - 1] = {
        ...previous,
        variables: [...previous.variables, ...part.variables],
        // `{?a}{&b}` with `a` undefined expands to `&b=...`.
        leads: previous.spec.first === '?' ? '?&' : '&',
        source: previous.source + source,
      };
      return;
    }
    const step: ExpressionStep = {
      kind: 'expression',
      spec: OPERATORS[part.operator],
      variables: part.variables,
      leads: OPERATORS[part.operator].first,
      source,
    };
    if (previous?.kind === 'expression') checkAdjacent(template, previous, step);
    if (!step.spec.named) checkExplodedLast(template, step);
    steps.push(step);
  });
  return steps;
}

function checkAdjacent(template: string, first: ExpressionStep, second: ExpressionStep): void {
  // The first expression ends at its first stop character; that only works if the second
  // expression's leading character is one of them.
  if (second.leads === '' || ![...second.leads].every((lead) => first.spec.stops.includes(lead))) {
    throw new UriTemplateError(
      template,
      `${first.source}${second.source}: adjacent expressions cannot be told apart when matching; put a literal between them`,
    );
  }
}

function checkExplodedLast(template: string, step: ExpressionStep): void {
  const exploded = step.variables.findIndex((variable) => variable.explode);
  if (exploded !== -1 && exploded < step.variables.length - 1) {
    throw new UriTemplateError(
      template,
      `${step.source}: an exploded variable must be the last of its expression to be matched`,
    );
  }
}

function describe(operator: Operator, variables: readonly VarSpec[]): string {
  const specs = variables.map(
    (v) => v.name + (v.explode ? '*' : '') + (v.maxLength === undefined ? '' : `:${v.maxLength}`),
  );
  return `{${operator}${specs.join(',')}}`;
}
