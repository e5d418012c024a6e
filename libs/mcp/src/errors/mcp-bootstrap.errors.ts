/**
 * A definition error found while the module starts (an invalid tool name, a duplicate URI, a
 * bad schema, a bad setting). It fails `app.init()` and names the offending `Class.method`.
 * @publicApi
 */
export class McpDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpDefinitionError';
  }
}
