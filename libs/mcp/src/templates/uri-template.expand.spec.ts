import { describe, expect, it } from '@jest/globals';
import { expandParts } from './template-expander.js';
import { parseTemplate } from './template-parser.js';
import { UriTemplate } from './uri-template.js';

/** The variables of RFC 6570 section 3.2. */
const RFC_VARIABLES: Record<string, unknown> = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  keys: { semi: ';', dot: '.', comma: ',' },
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_keys: [],
  undef: null,
};

/** RFC 6570 section 3.2.1 to 3.2.9, one example list per operator, as printed in the RFC. */
const RFC_EXAMPLES: Record<string, [template: string, expected: string][]> = {
  '3.2.1 variable expansion': [
    ['{count}', 'one,two,three'],
    ['{count*}', 'one,two,three'],
    ['{/count}', '/one,two,three'],
    ['{/count*}', '/one/two/three'],
    ['{;count}', ';count=one,two,three'],
    ['{;count*}', ';count=one;count=two;count=three'],
    ['{?count}', '?count=one,two,three'],
    ['{?count*}', '?count=one&count=two&count=three'],
    ['{&count*}', '&count=one&count=two&count=three'],
  ],
  '3.2.2 simple string {var}': [
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{half}', '50%25'],
    ['O{empty}X', 'OX'],
    ['O{undef}X', 'OX'],
    ['{x,y}', '1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['?{x,empty}', '?1024,'],
    ['?{x,undef}', '?1024'],
    ['?{undef,y}', '?768'],
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    ['{keys}', 'semi,%3B,dot,.,comma,%2C'],
    ['{keys*}', 'semi=%3B,dot=.,comma=%2C'],
  ],
  '3.2.3 reserved {+var}': [
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+half}', '50%25'],
    ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
    ['{+base}index', 'http://example.com/home/index'],
    ['O{+empty}X', 'OX'],
    ['O{+undef}X', 'OX'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['up{+path}{var}/here', 'up/foo/barvalue/here'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{+list}', 'red,green,blue'],
    ['{+list*}', 'red,green,blue'],
    ['{+keys}', 'semi,;,dot,.,comma,,'],
    ['{+keys*}', 'semi=;,dot=.,comma=,'],
  ],
  '3.2.4 fragment {#var}': [
    ['{#var}', '#value'],
    ['{#hello}', '#Hello%20World!'],
    ['{#half}', '#50%25'],
    ['foo{#empty}', 'foo#'],
    ['foo{#undef}', 'foo'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['{#path:6}/here', '#/foo/b/here'],
    ['{#list}', '#red,green,blue'],
    ['{#list*}', '#red,green,blue'],
    ['{#keys}', '#semi,;,dot,.,comma,,'],
    ['{#keys*}', '#semi=;,dot=.,comma=,'],
  ],
  '3.2.5 label {.var}': [
    ['{.who}', '.fred'],
    ['{.who,who}', '.fred.fred'],
    ['{.half,who}', '.50%25.fred'],
    ['www{.dom*}', 'www.example.com'],
    ['X{.var}', 'X.value'],
    ['X{.var:3}', 'X.val'],
    ['X{.empty}', 'X.'],
    ['X{.undef}', 'X'],
    ['X{.list}', 'X.red,green,blue'],
    ['X{.list*}', 'X.red.green.blue'],
    ['X{.keys}', 'X.semi,%3B,dot,.,comma,%2C'],
    ['X{.keys*}', 'X.semi=%3B.dot=..comma=%2C'],
    ['X{.empty_keys}', 'X'],
    ['X{.empty_keys*}', 'X'],
  ],
  '3.2.6 path segment {/var}': [
    ['{/who}', '/fred'],
    ['{/who,who}', '/fred/fred'],
    ['{/half,who}', '/50%25/fred'],
    ['{/who,dub}', '/fred/me%2Ftoo'],
    ['{/var}', '/value'],
    ['{/var,empty}', '/value/'],
    ['{/var,undef}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{/var:1,var}', '/v/value'],
    ['{/list}', '/red,green,blue'],
    ['{/list*}', '/red/green/blue'],
    ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
    ['{/keys}', '/semi,%3B,dot,.,comma,%2C'],
    ['{/keys*}', '/semi=%3B/dot=./comma=%2C'],
  ],
  '3.2.7 path-style parameter {;var}': [
    ['{;who}', ';who=fred'],
    ['{;half}', ';half=50%25'],
    ['{;empty}', ';empty'],
    ['{;v,empty,who}', ';v=6;empty;who=fred'],
    ['{;v,bar,who}', ';v=6;who=fred'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{;x,y,undef}', ';x=1024;y=768'],
    ['{;hello:5}', ';hello=Hello'],
    ['{;list}', ';list=red,green,blue'],
    ['{;list*}', ';list=red;list=green;list=blue'],
    ['{;keys}', ';keys=semi,%3B,dot,.,comma,%2C'],
    ['{;keys*}', ';semi=%3B;dot=.;comma=%2C'],
  ],
  '3.2.8 form-style query {?var}': [
    ['{?who}', '?who=fred'],
    ['{?half}', '?half=50%25'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['{?x,y,undef}', '?x=1024&y=768'],
    ['{?var:3}', '?var=val'],
    ['{?list}', '?list=red,green,blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    ['{?keys}', '?keys=semi,%3B,dot,.,comma,%2C'],
    ['{?keys*}', '?semi=%3B&dot=.&comma=%2C'],
  ],
  '3.2.9 form-style query continuation {&var}': [
    ['{&who}', '&who=fred'],
    ['{&half}', '&half=50%25'],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{&var:3}', '&var=val'],
    ['{&list}', '&list=red,green,blue'],
    ['{&list*}', '&list=red&list=green&list=blue'],
    ['{&keys}', '&keys=semi,%3B,dot,.,comma,%2C'],
    ['{&keys*}', '&semi=%3B&dot=.&comma=%2C'],
  ],
};

/**
 * RFC examples that `UriTemplate` refuses because they cannot be matched unambiguously (see
 * `match-plan.ts`); their expansion is still checked, through the expander itself.
 */
const NOT_MATCHABLE = ['up{+path}{var}/here', '{/list*,path:4}'];

const expandAny = (template: string, variables: Record<string, unknown>): string =>
  NOT_MATCHABLE.includes(template)
    ? expandParts(parseTemplate(template), variables)
    : new UriTemplate(template).expand(variables);

describe('UriTemplate.expand', () => {
  describe.each(Object.entries(RFC_EXAMPLES))('RFC 6570 %s', (_section, examples) => {
    it.each(examples)('%s expands to %s', (template, expected) => {
      expect(expandAny(template, RFC_VARIABLES)).toBe(expected);
    });
  });

  it('refuses exactly the RFC examples that cannot be matched back', () => {
    const all = Object.values(RFC_EXAMPLES).flatMap((examples) => examples.map(([template]) => template));
    expect(all.filter((template) => !UriTemplate.isValid(template))).toEqual(NOT_MATCHABLE);
  });

  it('encodes characters outside the BMP as UTF-8 (where per-UTF-16-unit encoders break them)', () => {
    const variables = { name: 'café 😀', path: '/a/😀' };
    expect(new UriTemplate('x://f/{name}').expand(variables)).toBe('x://f/caf%C3%A9%20%F0%9F%98%80');
    expect(new UriTemplate('file://{+path}').expand(variables)).toBe('file:///a/%F0%9F%98%80');
    expect(new UriTemplate('x://f/{?name}').expand(variables)).toBe('x://f/?name=caf%C3%A9%20%F0%9F%98%80');
  });

  it('counts prefix lengths in Unicode characters, never splitting a surrogate pair', () => {
    expect(new UriTemplate('{x:2}').expand({ x: 'a😀b' })).toBe('a%F0%9F%98%80');
    expect(new UriTemplate('{x:1}').expand({ x: '😀😀' })).toBe('%F0%9F%98%80');
  });

  it('percent-encodes non-ASCII literals and keeps existing %XX triplets', () => {
    expect(new UriTemplate('x://café/{id}').expand({ id: '1' })).toBe('x://caf%C3%A9/1');
    expect(new UriTemplate('x://a%20b/{id}').expand({ id: '1' })).toBe('x://a%20b/1');
  });

  it('writes numbers, booleans and bigints as strings', () => {
    expect(new UriTemplate('x://{a}/{b}/{c}{?d*}').expand({ a: 1.5, b: false, c: 10n, d: [1, true] })).toBe(
      'x://1.5/false/10?d=1&d=true',
    );
  });

  it('leaves out undefined, null, empty lists, empty objects and null members', () => {
    const template = new UriTemplate('x://q{?a,b,c,d,e}');
    expect(template.expand({ a: undefined, b: null, c: [], d: {}, e: [null, 'x'] })).toBe('x://q?e=x');
    expect(template.expand({})).toBe('x://q');
  });

  it('reads only own properties (no prototype values such as constructor)', () => {
    const template = new UriTemplate('x://{constructor}/{toString}{?__proto__}');
    expect(template.expand({})).toBe('x:///');
    expect(template.expand(JSON.parse('{"__proto__":"p","constructor":"c","toString":"t"}'))).toBe(
      'x://c/t?__proto__=p',
    );
  });

  it('throws for values it cannot expand', () => {
    expect(() => new UriTemplate('{x}').expand({ x: [['nested']] })).toThrow(/must be a string, number, boolean/);
    expect(() => new UriTemplate('{x}').expand({ x: { a: { b: 1 } } })).toThrow(/must be a string, number, boolean/);
    expect(() => new UriTemplate('{x:2}').expand({ x: ['ab'] })).toThrow(/prefix modifier but a list or object/);
    expect(() => new UriTemplate('{x}').expand({ x: '\uD800' })).toThrow(/not well-formed Unicode/);
  });
});
