import type { Operator } from './operators.js';

/** One variable of an expression (`varspec`), e.g. `tags*` or `id:3`. */
export interface VarSpec {
  readonly name: string;
  /** The explode modifier `*`: list members (or pairs) become separate values. */
  readonly explode: boolean;
  /** The prefix modifier `:n`, in Unicode characters. */
  readonly maxLength?: number;
}

/** Text copied as is; `value` is already in its expanded (percent-encoded) form. */
export interface LiteralPart {
  readonly kind: 'literal';
  readonly value: string;
}

/** One `{...}` expression. */
export interface ExpressionPart {
  readonly kind: 'expression';
  readonly operator: Operator;
  readonly variables: readonly VarSpec[];
}

/** A parsed template is a list of these, in template order. */
export type TemplatePart = LiteralPart | ExpressionPart;
