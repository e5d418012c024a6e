import { stringifyJson } from '../../model/raw-json.js';
import { META_SUBSCRIPTION_ID } from '../../mcp.constants.js';

/**
 * A notification serialized up to its `_meta`: one fan-out hands the same params object to every
 * listen, so each stream only appends its own subscription id. Undefined for params that carry
 * a `_meta` of their own (the listen's replaces it, serialized whole).
 */
const headsByParams = new WeakMap<Record<string, unknown>, { readonly method: string; readonly head: string }>();
const headsWithoutParams = new Map<string, string>();

function notificationHead(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (params === undefined) {
    let head = headsWithoutParams.get(method);
    if (head === undefined) headsWithoutParams.set(method, (head = headOf(method, '')));
    return head;
  }
  if (Object.hasOwn(params, '_meta')) return undefined;
  const cached = headsByParams.get(params);
  if (cached?.method === method) return cached.head;
  const head = headOf(method, stringifyJson(params).slice(1, -1));
  headsByParams.set(params, { method, head });
  return head;
}

const headOf = (method: string, inner: string): string =>
  `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":{${inner === '' ? '' : `${inner},`}`;

/**
 * The serializer of one listen's notifications: each carries the listen's subscription id in
 * `_meta` (MCP 2026-07-28). A fan-out to thousands of listens serializes the notification once
 * and appends each id, rather than serializing it again per listen.
 */
export function listenNotifications(
  subscriptionId: string | number,
): (method: string, params?: Record<string, unknown>) => string {
  const metaTail = `${JSON.stringify(META_SUBSCRIPTION_ID)}:${JSON.stringify(subscriptionId)}}}}`;
  return (method, params) => {
    const head = notificationHead(method, params);
    if (head !== undefined) return `${head}"_meta":{${metaTail}`;
    return stringifyJson({
      jsonrpc: '2.0',
      method,
      params: { ...params, _meta: { [META_SUBSCRIPTION_ID]: subscriptionId } },
    });
  };
}
