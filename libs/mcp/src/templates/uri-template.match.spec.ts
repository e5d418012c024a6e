import { describe, expect, it } from '@jest/globals';
import type { UriVariables } from './match-captures.js';
import { UriTemplate } from './uri-template.js';

const match = (template: string, uri: string): UriVariables | undefined => new UriTemplate(template).match(uri);

describe('UriTemplate.match', () => {
  it.each<[template: string, uri: string, expected: UriVariables]>([
    ['db://notes/{id}', 'db://notes/42', { id: '42' }],
    ['test://template/{id}/data', 'test://template/abc/data', { id: 'abc' }],
    ['file:///{+path}', 'file:///home/user/a.txt', { path: 'home/user/a.txt' }],
    ['x://users{/id*}', 'x://users/a/b/c', { id: ['a', 'b', 'c'] }],
    ['x://users{/id*}', 'x://users/a', { id: ['a'] }],
    ['x://users{/id*}', 'x://users', {}],
    ['x://q{?tags*}', 'x://q?tags=a&tags=b%20c', { tags: ['a', 'b c'] }],
    ['x://q{?tags*}', 'x://q', {}],
    ['x://q{?a,b}', 'x://q?a=1&b=2', { a: '1', b: '2' }],
    ['x://q{?a,b}', 'x://q?b=2&a=1', { a: '1', b: '2' }],
    ['x://q{?a,b}', 'x://q?b=', { b: '' }],
    ['x://q{?a}{&b}', 'x://q?b=2&a=1', { a: '1', b: '2' }],
    ['x://q?fixed=1{&b}', 'x://q?fixed=1&b=2', { b: '2' }],
    ['x://a/{x}/{y}/{z}', 'x://a/1/2/3', { x: '1', y: '2', z: '3' }],
    ['db://notes/{id}', 'db://notes/a%2Fb%20c%3F', { id: 'a/b c?' }],
    ['db://notes/{id}', 'db://notes/caf%C3%A9%F0%9F%98%80', { id: 'café😀' }],
    ['x://caf%C3%A9/{id}', 'x://caf%C3%A9/1', { id: '1' }],
    ['x://items/{id}{?fields}', 'x://items/7?fields=a,b', { id: '7', fields: 'a,b' }],
    ['x://items/{id}{?fields}', 'x://items/7', { id: '7' }],
    ['x://{x,y}', 'x://1,2', { x: '1', y: '2' }],
    ['x://{x,y}', 'x://1', { x: '1' }],
    ['x://m{;a,b}', 'x://m;b=2;a', { a: '', b: '2' }],
    ['x://d{#frag}', 'x://d#a/b?c', { frag: 'a/b?c' }],
    ['x://h{.dom*}', 'x://h.example.com', { dom: ['example', 'com'] }],
    ['x://s{/a,b}', 'x://s/1/2', { a: '1', b: '2' }],
    ['x://s{/a,b}', 'x://s/1', { a: '1' }],
    ['x://h/{hash:2}/{hash}', 'x://h/ab/abcdef', { hash: 'abcdef' }],
    ['x://v/{ver:3}', 'x://v/1.2', { ver: '1.2' }],
    ['x://v/{ver:1}', 'x://v/%F0%9F%98%80', { ver: '😀' }],
    ['x://{x}/{x}', 'x://1/1', { x: '1' }],
  ])('%s matches %s', (template, uri, expected) => {
    expect(match(template, uri)).toEqual(expected);
  });

  it.each<[template: string, uri: string, why: string]>([
    ['mem://items/{id}', 'db://items/1', 'another scheme'],
    ['db://items/{id}', 'mem://items/1', 'another scheme'],
    ['db://items/{id}', 'DB://items/1', 'scheme in another case'],
    ['db://items/{id}', 'db://Items/1', 'literal in another case'],
    ['db://items/{id}', 'db://items/1/extra', 'a trailing segment'],
    ['db://items/{id}', 'db://items/1/', 'a trailing slash'],
    ['db://items/{id}', 'db://items/1?x=1', 'a query the template has not'],
    ['db://items/{id}', 'db://items/1#f', 'a fragment the template has not'],
    ['db://items/{id}', 'db://items/', 'an empty variable'],
    ['db://items/{id}', 'db://items', 'a missing literal'],
    ['db://items/{id}', 'db://items/%E0%A4%A', 'a malformed escape'],
    ['db://items/{id}', 'db://items/%FF', 'an escape that is not UTF-8'],
    ['test://template/{id}/data', 'test://template//data', 'an empty variable'],
    ['test://template/{id}/data', 'test://template/a/b/data', 'a slash in a simple variable'],
    ['test://template/{id}/data', 'test://template/a/data/more', 'text after the last literal'],
    ['file:///{+path}', 'file:///', 'an empty reserved variable'],
    ['file:///{+path}', 'file:///a?b', 'a query in a reserved variable'],
    ['x://users{/id*}', 'x://users/a?x', 'a query the template has not'],
    ['x://users{/id*}', 'x://usersa/b', 'no leading slash'],
    ['x://q{?a,b}', 'x://q?a=1&c=3', 'an undeclared query parameter'],
    ['x://q{?a,b}', 'x://q?a=1&a=2', 'an unexploded parameter given twice'],
    ['x://q{?a,b}', 'x://q&a=1', 'the wrong leading character'],
    ['x://s{/a,b}', 'x://s/1/2/3', 'more segments than variables'],
    ['x://h/{hash:2}/{hash}', 'x://h/xy/abcdef', 'occurrences that disagree'],
    ['x://h/{hash:2}/{hash}', 'x://h/a/abcdef', 'a prefix shorter than the value allows'],
    ['x://v/{ver:3}', 'x://v/1.2.3', 'a value over its prefix length'],
    ['x://{x}/{x}', 'x://1/2', 'occurrences that disagree'],
  ])('%s does not match %s (%s)', (template, uri) => {
    expect(match(template, uri)).toBeUndefined();
  });

  describe('ambiguity policy', () => {
    it('ends an expression at the first occurrence of the literal after it', () => {
      expect(match('x://{a}-{b}', 'x://1-2-3')).toEqual({ a: '1', b: '2-3' });
      expect(match('x://f/{name}.{ext}', 'x://f/archive.tar.gz')).toEqual({ name: 'archive', ext: 'tar.gz' });
    });

    it('anchors a literal that ends the template to the end of the URI', () => {
      expect(match('x://f/{name}.json', 'x://f/a.b.json')).toEqual({ name: 'a.b' });
      expect(match('x://repo/{+path}/meta', 'x://repo/a/meta/b/meta')).toEqual({ path: 'a/meta/b' });
    });

    it('gives surplus comma-separated values to the last variable', () => {
      expect(match('x://{x,y}', 'x://1,2,3')).toEqual({ x: '1', y: '2,3' });
      expect(match('x://{list}', 'x://a,b')).toEqual({ list: 'a,b' });
    });

    it('ends an expression at its first stop character when another expression follows', () => {
      expect(match('x://{id}{?q}', 'x://7?q=1')).toEqual({ id: '7', q: '1' });
      expect(match('file:///{+path}{?rev}', 'file:///a/b?rev=2')).toEqual({ path: 'a/b', rev: '2' });
      expect(match('x://{id}{?q}', 'x://7/8?q=1')).toBeUndefined();
    });
  });

  it('keeps variable names such as __proto__ as plain own keys', () => {
    const result = match('x://{__proto__}/{constructor}', 'x://p/c');
    expect(result && Object.entries(result)).toEqual([
      ['__proto__', 'p'],
      ['constructor', 'c'],
    ]);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });

  it.each<[template: string, variables: Record<string, unknown>]>([
    ['db://notes/{id}', { id: 'a/b c?#%é' }],
    ['file:///{+path}', { path: 'home/user/é 😀.txt' }],
    ['x://users{/id*}', { id: ['a', 'b c', 'd/e'] }],
    ['x://q{?tags*,limit}', { tags: ['x', 'y&z=1'], limit: '10' }],
    ['x://m{;v,w}/{id}{?q}{#f}', { id: '1', v: 'a;b', w: '', q: 'x y', f: '/frag?' }],
    ['x://h/{hash:2}/{hash}', { hash: 'abcdef' }],
    ['x://h{.dom*}/{x,y}', { dom: ['example', 'com'], x: '1', y: '2' }],
  ])('reads back what %s expands to', (template, variables) => {
    const compiled = new UriTemplate(template);
    expect(compiled.match(compiled.expand(variables))).toEqual(variables);
  });

  it('lists each variable once, in order of first appearance', () => {
    expect(new UriTemplate('x://{a}/{b}{?a,c*}').variableNames).toEqual(['a', 'b', 'c']);
    expect(new UriTemplate('x://static').variableNames).toEqual([]);
  });
});
