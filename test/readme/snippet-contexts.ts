/**
 * What the documentation's fragments leave out, by file and heading (`'docs/tools.md: Tool
 * lifecycle hooks'`, or `'... #2'` for the second block under one heading; the heading is the
 * nearest `#` or `##` one). A block without any `import` gets every export of `@nest-mcp/server`
 * and a few Nest names imported for it (see compile-snippets.ts); these add the rest: the
 * classes, values and members that a fragment uses but that the surrounding text only describes.
 * A block that is a whole file needs nothing here.
 */
export interface SnippetContext {
  /** Declarations put before the block. */
  declarations?: string;
  /**
   * The block is class members (decorated methods): it is put in an `@Injectable()` class,
   * after these members.
   */
  classMembers?: string;
}

export const SNIPPET_CONTEXTS: Record<string, SnippetContext> = {
  'docs/options.md: Module setup': {
    // forRootAsync with @nestjs/config, which this repository does not install.
    declarations: `
      declare class ConfigService { get<T = any>(key: string): T; }
      @Module({ providers: [ConfigService], exports: [ConfigService] })
      class ConfigModule {}`,
  },
  'docs/prompts.md: Completion': { classMembers: '' },
  'docs/request-context.md: Progress, logging and cancellation': {
    declarations: 'class ImportInput { path!: string; }',
    classMembers: `
      private readonly reader!: { rows(path: string): Promise<unknown[]> };
      private readonly store!: { save(row: unknown): Promise<void> };`,
  },
  'docs/request-context.md: Asking the client: sampling, elicitation, roots': { classMembers: '' },
  'docs/tools.md: Tool lifecycle hooks': {},
  'docs/subscriptions.md: Compatibility with the official SDK client': {
    declarations: 'declare const serverInfo: { name: string; version: string };',
  },
  'docs/enhancers.md: Guards, interceptors, pipes and filters': {
    declarations: "import type { Request } from 'express';",
  },
  'docs/transports.md: Transports': {
    declarations: `
      import { WsAdapter } from '@nestjs/platform-ws';
      declare const serverInfo: { name: string; version: string };
      declare const app: INestApplication;`,
  },
  'docs/transports.md: stdio': {
    declarations: 'declare class AppModule {}',
  },
  'docs/authorization.md: Tokens': {},
  'docs/authorization.md: Who is calling': { classMembers: '' },
  'docs/authorization.md: Scopes on capabilities': {},
  'docs/skills.md: Scopes on skills': {
    declarations:
      'declare const issuer: string; declare const verifier: McpTokenVerifier; declare const skillsFolder: string;',
  },
  'docs/testing.md: Testing your MCP server': {
    declarations: 'declare class AppModule {}',
  },
};
