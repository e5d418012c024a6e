import { describe, expect, it } from '@jest/globals';
import { findBearerToken, MAX_TOKEN_LENGTH } from './bearer-token.js';

const request = (authorization?: string, url = '/mcp') => ({
  headers: authorization === undefined ? {} : { authorization },
  url,
});

describe('findBearerToken', () => {
  it('takes the token of an Authorization: Bearer header, the scheme in any case', () => {
    expect(findBearerToken(request('Bearer abc.DEF-_~+/=='))).toEqual({ kind: 'token', token: 'abc.DEF-_~+/==' });
    expect(findBearerToken(request('bearer xyz'))).toEqual({ kind: 'token', token: 'xyz' });
  });

  it('finds none without the header or with another scheme', () => {
    expect(findBearerToken(request())).toEqual({ kind: 'missing' });
    expect(findBearerToken(request('Basic dXNlcjpwYXNz'))).toEqual({ kind: 'missing' });
    expect(findBearerToken(request('Bearerxyz'))).toEqual({ kind: 'missing' });
  });

  it('never uses a token in the query string', () => {
    expect(findBearerToken(request(undefined, '/mcp?access_token=abc'))).toEqual({ kind: 'query' });
    expect(findBearerToken(request('Basic x', '/sse?x=1&access_token=abc'))).toEqual({ kind: 'query' });
  });

  it('refuses a token sent both in the header and in the URI as malformed', () => {
    expect(findBearerToken(request('Bearer abc', '/mcp?access_token=abc')).kind).toBe('malformed');
  });

  it('refuses a Bearer header without exactly one token as malformed', () => {
    for (const header of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a,b', 'Bearer "abc"', 'Bearer ab=c']) {
      expect(findBearerToken(request(header)).kind).toBe('malformed');
    }
  });

  it('refuses tokens longer than the cap before parsing them', () => {
    expect(findBearerToken(request(`Bearer ${'a'.repeat(MAX_TOKEN_LENGTH + 1)}`))).toEqual({ kind: 'oversized' });
    expect(findBearerToken(request(`Bearer ${'a'.repeat(MAX_TOKEN_LENGTH)}`)).kind).toBe('token');
  });

  it('does not mistake other query parameters for tokens', () => {
    expect(findBearerToken(request('Bearer abc', '/messages?sessionId=xyz'))).toEqual({ kind: 'token', token: 'abc' });
  });
});
