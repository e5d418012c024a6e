/** The part of oidc-provider 9 (no bundled types) the test harness uses. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
  };
}
