import { createRequire } from 'node:module';
import type { Operator } from './operators.js';
import { encodeReserved } from './pct-encoding.js';
import type { TemplatePart, VarSpec } from './template-ast.js';
import { UriTemplateError } from './uri-template.error.js';

/** The parts of `@hyperjump/uri-template` used here (the package ships no typings). */
interface HyperjumpUriTemplate {
  parse(template: string): HyperjumpNode[];
}
type HyperjumpNode =
  | { type: 'literal'; value: string }
  | { type: Operator; variables: { name: string; explode: boolean; maxLength?: string }[] };

// The package is CommonJS without typings: `require` it and state its shape once, here.
const hyperjump = createRequire(import.meta.url)('@hyperjump/uri-template') as HyperjumpUriTemplate;

/** RFC 6570 section 2.4.1: `max-length = %x31-39 0*3DIGIT`. */
const MAX_PREFIX_LENGTH = 9999;

/**
 * One character of a literal (RFC 6570 section 2.1): the ASCII characters a URI may carry
 * except `%`, or a `%XX` triplet, or a non-ASCII character outside the controls and surrogates.
 */
const LITERAL_CHAR = /[!#$&(-;=?-[\]_a-z~]|%[0-9A-Fa-f]{2}|[\u{A0}-\u{D7FF}\u{E000}-\u{10FFFF}]/uy;

/**
 * Parses an RFC 6570 template. The grammar of expressions (operators, variable names,
 * modifiers, braces) is checked by `@hyperjump/uri-template`; on top of it this rejects what
 * that parser lets through: literal characters the RFC excludes, and prefixes above 9999.
 * @throws UriTemplateError naming the first problem found
 */
export function parseTemplate(template: string): TemplatePart[] {
  // Templates also come from decorators and plain JavaScript: fail clearly on anything else.
  if (typeof template !== 'string') throw new UriTemplateError(String(template), 'a URI template must be a string');
  let nodes: HyperjumpNode[];
  try {
    nodes = hyperjump.parse(template);
  } catch (error) {
    throw new UriTemplateError(template, describeParseError(error));
  }
  const parts: TemplatePart[] = [];
  let offset = 0;
  for (const node of nodes) {
    if (node.type === 'literal') {
      // Hyperjump stores literals already encoded (per UTF-16 unit, which mangles characters
      // outside the BMP), so take the raw text from the template and encode it here.
      const brace = template.indexOf('{', offset);
      const end = brace === -1 ? template.length : brace;
      const raw = template.slice(offset, end);
      checkLiteral(template, raw, offset);
      parts.push({ kind: 'literal', value: encodeReserved(raw) });
      offset = end;
    } else {
      parts.push({
        kind: 'expression',
        operator: node.type,
        variables: node.variables.map((v) => toVarSpec(template, v)),
      });
      offset = template.indexOf('}', offset) + 1;
    }
  }
  return parts;
}

function toVarSpec(template: string, variable: { name: string; explode: boolean; maxLength?: string }): VarSpec {
  if (variable.maxLength === undefined) return { name: variable.name, explode: variable.explode };
  const maxLength = Number(variable.maxLength);
  if (maxLength > MAX_PREFIX_LENGTH) {
    throw new UriTemplateError(template, `the prefix of '${variable.name}' is over ${MAX_PREFIX_LENGTH}`);
  }
  return { name: variable.name, explode: false, maxLength };
}

function checkLiteral(template: string, raw: string, offset: number): void {
  LITERAL_CHAR.lastIndex = 0;
  while (LITERAL_CHAR.lastIndex < raw.length) {
    const at = LITERAL_CHAR.lastIndex;
    if (!LITERAL_CHAR.test(raw)) {
      const char = String.fromCodePoint(raw.codePointAt(at) ?? 0);
      throw new UriTemplateError(
        template,
        `character ${JSON.stringify(char)} at offset ${offset + at} is not allowed in a literal (percent-encode it)`,
      );
    }
  }
}

/** Hyperjump reports `Parse Error: <why>\n<template>\n<caret line>`; keep the why and where. */
function describeParseError(error: unknown): string {
  const lines = (error instanceof Error ? error.message : String(error)).split('\n');
  const reason = lines[0].replace(/^Parse Error:\s*/, '');
  const caret = lines[2]?.indexOf('^') ?? -1;
  return caret >= 0 ? `${reason} (at offset ${caret})` : reason;
}
