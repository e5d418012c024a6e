import type { JsonRpcNotification } from '../protocol/json-rpc.js';

/** `notifications/resources/updated` (spec 6.1). */
export const resourceUpdated = (uri: string): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/updated',
  params: { uri },
});

export const resourceListChanged = (): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/list_changed',
});

export const toolListChanged = (): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/tools/list_changed',
});

export const promptListChanged = (): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/prompts/list_changed',
});
