import { describe, expect, it } from '@jest/globals';
import { META_SUBSCRIPTION_ID } from '../../mcp.constants.js';
import { listenNotifications } from './listen-notifications.js';

/** What a listen's notification must be: the params with the subscription id merged into `_meta`. */
const expected = (id: string | number, method: string, params?: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, _meta: { [META_SUBSCRIPTION_ID]: id } } });

describe('listenNotifications', () => {
  it.each<[string, string | number, string, Record<string, unknown> | undefined]>([
    ['an update', 'req-1', 'notifications/resources/updated', { uri: 'db://notes/1' }],
    ['a list change (no params)', 7, 'notifications/tools/list_changed', undefined],
    ['empty params', 0, 'notifications/prompts/list_changed', {}],
    ['an id and a URI that need escaping', 'a"b\\c', 'notifications/resources/updated', { uri: 'x://"q"/€' }],
    [
      'nested params',
      'ack',
      'notifications/subscriptions/acknowledged',
      { notifications: { resourceSubscriptions: ['a'] } },
    ],
  ])('serializes %s exactly as the whole object would be', (_case, id, method, params) => {
    const text = listenNotifications(id)(method, params);
    expect(text).toBe(expected(id, method, params));
    expect(JSON.parse(text)).toEqual(JSON.parse(expected(id, method, params)));
  });

  it('gives every listen of one fan-out its own id from the same params object', () => {
    const params = { uri: 'db://notes/2' };
    const texts = ['s1', 's2', 3].map((id) => listenNotifications(id)('notifications/resources/updated', params));
    expect(
      texts.map((text) => (JSON.parse(text) as { params: { _meta: Record<string, unknown> } }).params._meta),
    ).toEqual([{ [META_SUBSCRIPTION_ID]: 's1' }, { [META_SUBSCRIPTION_ID]: 's2' }, { [META_SUBSCRIPTION_ID]: 3 }]);
  });

  it('keeps the method when one params object is sent under two methods', () => {
    const stamp = listenNotifications('s');
    const params = { uri: 'db://notes/3' };
    expect(stamp('notifications/resources/updated', params)).toBe(
      expected('s', 'notifications/resources/updated', params),
    );
    expect(stamp('notifications/other', params)).toBe(expected('s', 'notifications/other', params));
  });

  it("puts the listen's _meta in place of one the params carry, as the whole-object serialization does", () => {
    const params = { uri: 'db://notes/4', _meta: { trace: 'abc', [META_SUBSCRIPTION_ID]: 'theirs' } };
    const parsed = JSON.parse(listenNotifications('mine')('notifications/resources/updated', params)) as {
      params: Record<string, unknown>;
    };
    expect(parsed.params).toEqual({ uri: 'db://notes/4', _meta: { [META_SUBSCRIPTION_ID]: 'mine' } });
  });
});
