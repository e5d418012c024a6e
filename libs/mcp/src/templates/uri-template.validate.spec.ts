import { describe, expect, it } from '@jest/globals';
import { thrownBy } from '../testing/thrown.js';
import { compileUriTemplate, UriTemplate, UriTemplateError } from './index.js';

const errorOf = (template: string): UriTemplateError => {
  const error = thrownBy(() => UriTemplate.validate(template));
  expect(error).toBeInstanceOf(UriTemplateError);
  return error as UriTemplateError;
};

describe('UriTemplate validation', () => {
  it.each([
    'db://notes/{id}',
    'file:///{+path}',
    'x://users{/id*}',
    'x://q{?tags*}',
    'test://template/{id}/data',
    'x://{a.b}/{c_d}/{%C3%A9}',
    'x://v/{ver:9999}',
    'x://caf%C3%A9/é/{id}',
    'x://static',
    '',
  ])('accepts %j', (template) => {
    expect(() => UriTemplate.validate(template)).not.toThrow();
    expect(UriTemplate.isValid(template)).toBe(true);
    expect(compileUriTemplate(template).template).toBe(template);
  });

  it.each<[template: string, reason: RegExp]>([
    ['x://{id', /or termination of the variable declaration/],
    ['x://id}', /Unexpected close-expression token/],
    ['x://{{id}}', /Expected an operator .* or a variable name/],
    ['x://{}', /Expected an operator .* or a variable name/],
    ['x://{!id}', /Expected an operator .* or a variable name/],
    ['x://{=id}', /Expected an operator .* or a variable name/],
    ['x://{|id}', /Expected an operator .* or a variable name/],
    ['x://{/}', /Expected a variable name/],
    ['x://{a,}', /Expected a variable name/],
    ['x://{,a}', /Expected an operator .* or a variable name/],
    ['x://{a b}', /modifier/],
    ['x://{a-b}', /modifier/],
    ['x://{a..b}', /Expected a variable name/],
    ['x://{%zz}', /Expected an operator .* or a variable name/],
    ['x://{a:0}', /prefix modifier expects an integer/],
    ['x://{a:3*}', /Expected either ','/],
    ['x://{a*:3}', /Expected either ','/],
    ['x://{a:10000}', /the prefix of 'a' is over 9999/],
    ['x://a b/{id}', /character " " at offset 5 is not allowed in a literal/],
    ['x://a"b/{id}', /character "\\"" at offset 5 is not allowed/],
    ['x://100%/{id}', /character "%" at offset 7 is not allowed/],
    ['x://a/{id}/<b>', /character "<" at offset 11 is not allowed/],
    ['x://\uD800/{id}', /is not allowed in a literal/],
  ])('rejects %j', (template, reason) => {
    const error = errorOf(template);
    expect(error.message).toMatch(reason);
    expect(error.message).toContain(`Invalid URI template '${template}'`);
    expect(error.template).toBe(template);
    expect(UriTemplate.isValid(template)).toBe(false);
    expect(() => new UriTemplate(template)).toThrow(UriTemplateError);
  });

  it('points at the offending offset', () => {
    expect(errorOf('x://{id').message).toMatch(/at offset 7\)$/);
    expect(errorOf('x://{!id}').message).toMatch(/at offset 5\)$/);
  });

  it.each([
    ['x://{a}{b}', '{a}{b}: adjacent expressions cannot be told apart'],
    ['x://f/{name}{.ext}', '{name}{.ext}: adjacent expressions'],
    ['x://{/a}{/b}', '{/a}{/b}: adjacent expressions'],
    ['x://{+a}{b}', '{+a}{b}: adjacent expressions'],
    ['x://{/a*,b}', '{/a*,b}: an exploded variable must be the last of its expression'],
    ['x://{a*,b}', '{a*,b}: an exploded variable must be the last'],
  ])('rejects %j as ambiguous to match', (template, reason) => {
    expect(errorOf(template).message).toContain(reason);
  });

  it.each(['x://{id}{?q}', 'file:///{+path}{?rev}{#f}', 'x://{/p*}{?q}', 'x://q{?a}{&b}{&c*}', 'x://{?a*,b}'])(
    'accepts %j, whose adjacent expressions start with a stop character',
    (template) => {
      expect(UriTemplate.isValid(template)).toBe(true);
    },
  );

  it('refuses non-strings (templates also come from plain JavaScript)', () => {
    expect(UriTemplate.isValid(undefined)).toBe(false);
    expect(UriTemplate.isValid(42)).toBe(false);
    expect(() => new UriTemplate(42 as unknown as string)).toThrow(/'42': a URI template must be a string/);
  });
});
