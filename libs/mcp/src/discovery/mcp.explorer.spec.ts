import 'reflect-metadata';
import { Controller, Inject, Injectable, Scope, type Type } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import type { TestingModule } from '@nestjs/testing';
import { McpPrompt, McpResource, McpTool } from '../decorators/index.js';
import { McpDefinitionError } from '../errors/mcp-bootstrap.errors.js';
import { McpPromptRegistry } from '../registry/mcp-prompt.registry.js';
import { McpResourceRegistry } from '../registry/mcp-resource.registry.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import {
  compileMcpModule,
  httpContext,
  McpTestClient,
  statelessContext,
  type McpFixture,
} from '../testing/mcp-testing-module.js';
import { rejectionOf } from '../testing/thrown.js';

@Injectable()
class BadNameTools {
  @McpTool({ name: 'bad name', description: 'has a space' })
  lookup() {}
}

@Injectable()
class AtSignTools {
  @McpTool({ name: 'user@tool', description: 'has an at sign' })
  atSign() {}
}

@Injectable()
class FirstTools {
  @McpTool({ name: 'search', description: 'first' })
  search() {}
}

@Injectable()
class SecondTools {
  @McpTool({ name: 'search', description: 'second' })
  find() {}
}

@Injectable()
class CaseTools {
  @McpTool({ name: 'Search', description: 'differs only in case' })
  searchCapital() {}
}

@Injectable()
class NoteResources {
  @McpResource({ uri: 'db://notes' })
  notes() {}
}

@Injectable()
class LegacyResources {
  @McpResource({ uri: 'db://notes' })
  legacyNotes() {}
}

@Injectable()
class SchemelessResources {
  @McpResource({ uri: 'notes' })
  notes() {}
}

@Injectable()
class WritingPrompts {
  @McpPrompt({ name: 'summarize', description: 'first' })
  summarize() {}
}

@Injectable()
class OtherPrompts {
  @McpPrompt({ name: 'summarize', description: 'second' })
  summary() {}
}

@Controller('notes')
class NotesController {
  @McpTool({ name: 'controller-tool', description: 'declared on a controller' })
  fromController() {
    return 'from the controller';
  }

  @McpResource({ uri: 'notes://controller' })
  controllerResource() {
    return 'resource text';
  }
}

@Controller('duplicate')
class DuplicateController {
  @McpTool({ name: 'search', description: 'clashes with FirstTools.search' })
  search() {}
}

let scopedInstances = 0;

@Injectable({ scope: Scope.REQUEST })
class ScopedTools {
  readonly instance = ++scopedInstances;

  constructor(@Inject(REQUEST) private readonly request: { marker?: string }) {}

  @McpTool({ name: 'scoped', description: 'request-scoped' })
  scoped() {
    return { instance: this.instance, marker: this.request.marker ?? null };
  }
}

/** Compiles the fixture and returns what `init()` rejects with. */
async function initFailure(fixture: McpFixture): Promise<McpDefinitionError> {
  let module: TestingModule | undefined;
  try {
    module = await compileMcpModule(fixture);
    const error = await rejectionOf(module.init());
    expect(error).toBeInstanceOf(McpDefinitionError);
    return error as McpDefinitionError;
  } finally {
    await module?.close().catch(() => undefined);
  }
}

describe('McpExplorer', () => {
  describe('definition errors fail init() naming Class.method', () => {
    it.each<[string, Type[], string[]]>([
      ['a tool name with a space', [BadNameTools], ['BadNameTools.lookup', "'bad name'"]],
      ['a tool name with an at sign', [AtSignTools], ['AtSignTools.atSign', "'user@tool'"]],
      [
        'a duplicate tool name across two providers',
        [FirstTools, SecondTools],
        ['FirstTools.search', 'SecondTools.find'],
      ],
      [
        'a duplicate resource URI',
        [NoteResources, LegacyResources],
        ['NoteResources.notes', 'LegacyResources.legacyNotes'],
      ],
      ['a resource URI without a scheme', [SchemelessResources], ['SchemelessResources.notes']],
      ['a duplicate prompt name', [WritingPrompts, OtherPrompts], ['WritingPrompts.summarize', 'OtherPrompts.summary']],
    ])('%s', async (_label, providers, mentioned) => {
      const error = await initFailure({ providers });

      for (const text of mentioned) expect(error.message).toContain(text);
    });

    it('names the tool on a controller too', async () => {
      const error = await initFailure({ providers: [FirstTools], controllers: [DuplicateController] });

      expect(error.message).toContain('FirstTools.search');
      expect(error.message).toContain('DuplicateController.search');
    });
  });

  describe('discovery', () => {
    let client: McpTestClient;

    beforeAll(async () => {
      client = await McpTestClient.create({
        providers: [FirstTools, CaseTools, NoteResources, WritingPrompts],
        controllers: [NotesController],
      });
    });

    afterAll(() => client.close());

    it('registers the tools, resources and prompts of providers and controllers with their sources', () => {
      const tools = client.module.get(McpToolRegistry);
      const resources = client.module.get(McpResourceRegistry);
      const prompts = client.module.get(McpPromptRegistry);

      expect(tools.size).toBe(3);
      expect(tools.get('search')?.source).toBe('FirstTools.search');
      expect(tools.get('Search')?.source).toBe('CaseTools.searchCapital');
      expect(tools.get('controller-tool')?.source).toBe('NotesController.fromController');
      expect(resources.get('db://notes')?.source).toBe('NoteResources.notes');
      expect(resources.get('notes://controller')?.source).toBe('NotesController.controllerResource');
      expect(prompts.get('summarize')?.source).toBe('WritingPrompts.summarize');
    });

    it('serves a tool and a resource declared on a controller', async () => {
      const ctx = statelessContext('2025-11-25');

      expect(await client.result('tools/call', { name: 'controller-tool' }, ctx)).toStrictEqual({
        content: [{ type: 'text', text: 'from the controller' }],
      });
      expect(await client.result('resources/read', { uri: 'notes://controller' }, ctx)).toStrictEqual({
        contents: [{ uri: 'notes://controller', mimeType: 'text/plain', text: 'resource text' }],
      });
    });

    it('calls a request-scoped tool on a fresh instance per call, with REQUEST as the transport request', async () => {
      const scoped = await McpTestClient.create({ providers: [ScopedTools] });
      try {
        const before = scopedInstances;
        const call = async (request: object) =>
          JSON.parse(
            (
              (await scoped.result('tools/call', { name: 'scoped' }, httpContext({ sessionsEnabled: false, request })))
                .content as { text: string }[]
            )[0].text,
          );

        const first = await call({ marker: 'one' });
        const second = await call({ marker: 'two' });

        expect(first).toEqual({ instance: expect.any(Number), marker: 'one' });
        expect(second).toEqual({ instance: expect.any(Number), marker: 'two' });
        expect(first.instance).not.toBe(second.instance);
        expect(first.instance).toBeGreaterThan(before);
      } finally {
        await scoped.close();
      }
    });
  });
});
