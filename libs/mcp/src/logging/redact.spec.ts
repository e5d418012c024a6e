import { describe, expect, it } from '@jest/globals';
import { REDACTED, redactHeaders, redactSecrets, redactUrl } from './redact.js';

const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXBhcnQ';
const SID = 'q3Jk9vX2mP0sT7yB4nL8cW1eR6uA5zQh';

describe('log redaction', () => {
  it('redacts Authorization and Mcp-Session-Id header values in text', () => {
    const text = redactSecrets(`Authorization: Bearer ${JWT}\nmcp-session-id: ${SID}\nAccept: */*`);
    expect(text).not.toContain(JWT);
    expect(text).not.toContain(SID);
    expect(text).toContain('Accept: */*');
    expect(text).toContain(REDACTED);
  });

  it('redacts bearer tokens and JWTs wherever they appear', () => {
    expect(redactSecrets(`upstream said: token ${JWT} is bad`)).toBe(`upstream said: token ${REDACTED} is bad`);
    expect(redactSecrets('failed with bearer abc.def-ghi')).toBe(`failed with bearer ${REDACTED}`);
  });

  it('redacts session ids and tokens in query strings and JSON members', () => {
    expect(redactSecrets(`POST /messages?sessionId=${SID}&x=1`)).toBe(`POST /messages?sessionId=${REDACTED}&x=1`);
    expect(redactSecrets(`GET /sse?access_token=${JWT}`)).not.toContain(JWT);
    expect(redactSecrets(`{"sessionId":"${SID}","ok":true}`)).toBe(`{"sessionId":"${REDACTED}","ok":true}`);
    expect(redactSecrets(`{ headers: { authorization: 'Bearer ${JWT}' } }`)).not.toContain(JWT);
  });

  it('redacts the password of a URL, and keeps its host', () => {
    expect(redactSecrets('Redis at redis://:hunter2@10.0.0.7:6379 is down')).toBe(
      `Redis at redis://:${REDACTED}@10.0.0.7:6379 is down`,
    );
    expect(redactSecrets('rediss://app:s3cr%40t@cache.internal/0')).toBe(`rediss://app:${REDACTED}@cache.internal/0`);
    expect(redactSecrets('see https://example.com/a:b@c and mailto:x@y')).toBe(
      'see https://example.com/a:b@c and mailto:x@y',
    );
  });

  it('leaves ordinary text alone', () => {
    const text = 'tools/call notes.create failed in 3.2 ms: Note title is required';
    expect(redactSecrets(text)).toBe(text);
  });

  it('redacts secret headers of a header object and a URL', () => {
    expect(
      redactHeaders({
        authorization: `Bearer ${JWT}`,
        'mcp-session-id': SID,
        cookie: 'a=b',
        accept: 'text/event-stream',
      }),
    ).toEqual({ authorization: REDACTED, 'mcp-session-id': REDACTED, cookie: REDACTED, accept: 'text/event-stream' });
    expect(redactUrl(`/messages?sessionId=${SID}`)).toBe(`/messages?sessionId=${REDACTED}`);
  });
});
