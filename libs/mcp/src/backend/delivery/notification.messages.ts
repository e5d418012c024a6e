import type { McpListKind } from '../mcp-fanout.js';
import type { JsonRpcNotification } from '../../model/json-rpc.js';

export const RESOURCE_UPDATED = 'notifications/resources/updated';

/** The method of each list's change notification. */
export const LIST_CHANGED_METHODS: Readonly<Record<McpListKind, string>> = {
  resources: 'notifications/resources/list_changed',
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
};

export const resourceUpdated = (uri: string): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: RESOURCE_UPDATED,
  params: { uri },
});

/** `notifications/resources/updated { uri }`, serialized. */
export const resourceUpdatedJson = (uri: string): string => JSON.stringify(resourceUpdated(uri));

/** Each list-changed notification, serialized once. */
export const LIST_CHANGED_JSON: Readonly<Record<McpListKind, string>> = {
  resources: JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED_METHODS.resources }),
  tools: JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED_METHODS.tools }),
  prompts: JSON.stringify({ jsonrpc: '2.0', method: LIST_CHANGED_METHODS.prompts }),
};
