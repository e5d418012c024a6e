import type { UriVariables } from './match-captures.js';
import { planMatch, type MatchStep } from './match-plan.js';
import type { TemplatePart } from './template-ast.js';
import { expandParts } from './template-expander.js';
import { matchSteps } from './template-matcher.js';
import { parseTemplate } from './template-parser.js';

/**
 * An RFC 6570 URI template, compiled once (at registration) to expand values into URIs and to
 * match concrete URIs back to values, as `resources/read` and `resources/subscribe` need for
 * resource templates.
 *
 * Matching is linear-time (no regular expression over the URI, no backtracking; see
 * `template-matcher.ts` for where each expression ends). In short:
 * - literals, the scheme included, match exactly and case-sensitively;
 * - `{id}` is one or more characters without `/ ? #`; `{+path}` may hold `/` (not `? #`);
 *   `{#frag}` holds anything; `{.x}` and `{;x}` stop at `/ ? #`, `{/x}` at `? #`, `{?x}` and
 *   `{&x}` at `#`;
 * - values are percent-decoded (`a%2Fb` gives `a/b`); a malformed escape fails the match;
 * - exploded variables give arrays (`{/id*}` reads `/a/b/c` as `['a','b','c']`), others strings
 *   (`{list}` reads `a,b` as `'a,b'`);
 * - `{?a,b}` and `{;a,b}` pairs are read in any order, undeclared names fail the match, and
 *   absent ones are left out of the result (as are variables of an absent `{/...}`, `{?...}`...).
 * @publicApi
 */
export class UriTemplate {
  /** The template as given. */
  readonly template: string;
  /** Each variable's name once, in order of first appearance. */
  readonly variableNames: string[];
  private readonly parts: readonly TemplatePart[];
  private readonly steps: readonly MatchStep[];

  /** @throws UriTemplateError when {@link UriTemplate.validate} would */
  constructor(template: string) {
    this.template = template;
    this.parts = parseTemplate(template);
    this.steps = planMatch(template, this.parts);
    const names = this.parts.flatMap((part) => (part.kind === 'expression' ? part.variables.map((v) => v.name) : []));
    this.variableNames = [...new Set(names)];
  }

  /**
   * Checks a template: RFC 6570 syntax (balanced braces, known operators, non-empty variable
   * names, valid modifiers and literal characters), and that it can be matched unambiguously
   * (no `{a}{b}`, no exploded variable before another in `{/a*,b}`).
   * @throws UriTemplateError whose message names the template and the problem
   */
  static validate(template: string): void {
    new UriTemplate(template);
  }

  /** Whether `value` is a string that {@link UriTemplate.validate} accepts. */
  static isValid(value: unknown): value is string {
    if (typeof value !== 'string') return false;
    try {
      UriTemplate.validate(value);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The template's variables in `uri`, percent-decoded, or `undefined` when it does not match.
   * Does not limit the URI's length: check {@link isUriTooLong} first on input from the wire.
   */
  match(uri: string): UriVariables | undefined {
    return matchSteps(this.steps, uri);
  }

  /**
   * The URI for `variables` (RFC 6570 expansion): strings, numbers and booleans; arrays for
   * lists; plain objects for associative arrays; `undefined`, `null` and empty ones are left
   * out. Only own properties are read.
   * @throws Error for nested lists or objects, or a prefix modifier on a list or object
   */
  expand(variables: Readonly<Record<string, unknown>>): string {
    return expandParts(this.parts, variables);
  }

  toString(): string {
    return this.template;
  }
}

/** Compiles `template` (a function form of `new UriTemplate(template)`). @publicApi */
export const compileUriTemplate = (template: string): UriTemplate => new UriTemplate(template);
