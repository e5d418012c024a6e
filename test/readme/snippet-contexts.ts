/**
 * What the README's fragments leave out, by section (`'Section'`, or `'Section #2'` for the
 * second block of a section). A block without any `import` gets every
 * export of `@nest-mcp/server` and a few Nest names imported for it (see compile-snippets.ts);
 * these add the rest: the classes, values and members that a fragment uses but that the
 * surrounding text only describes. A block that is a whole file needs nothing here.
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
  'Using the library in a Nest application #2': {
    // forRootAsync with @nestjs/config, which this repository does not install.
    declarations: `
      declare class ConfigService { get<T = any>(key: string): T; }
      @Module({ providers: [ConfigService], exports: [ConfigService] })
      class ConfigModule {}`,
  },
  Completion: { classMembers: '' },
  'Progress, logging and cancellation': {
    declarations: 'class ImportInput { path!: string; }',
    classMembers: `
      private readonly reader!: { rows(path: string): Promise<unknown[]> };
      private readonly store!: { save(row: unknown): Promise<void> };`,
  },
  'Asking the client: sampling, elicitation, roots': { classMembers: '' },
  'Tool lifecycle hooks': {},
  'Compatibility with the official SDK client': {
    declarations: 'declare const serverInfo: { name: string; version: string };',
  },
  'Guards, interceptors, pipes and filters': {
    declarations: "import type { Request } from 'express';",
  },
  Transports: {
    declarations: `
      import { WsAdapter } from '@nestjs/platform-ws';
      declare const serverInfo: { name: string; version: string };
      declare const app: INestApplication;
      declare class AppModule {}`,
  },
  'Authorization #2': {},
  'Authorization #3': { classMembers: '' },
  'Authorization #4': {},
  'Testing your MCP server': {
    declarations: 'declare class AppModule {}',
  },
};
