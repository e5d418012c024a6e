/**
 * What each entry of the package exports: `@nest-mcp/server` for application authors (under 100
 * names, no internals), `@nest-mcp/server/backend` for backend authors, `@nest-mcp/server/testing`
 * for tests. The names come from the TypeScript compiler, as a user's editor sees them; adding one
 * to the main entry means adding it to PUBLIC below, on purpose.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { MODULE_METADATA } from '@nestjs/common/constants.js';
import { McpModule } from './mcp.module.js';
import { ResourceNotificationService } from './notifications/resource-notification.service.js';
import { McpResourceService } from './resources/mcp-resource.service.js';
import { McpSkills } from './extensions/skills/mcp-skills.service.js';
import { McpServerStats } from './session/mcp-server-stats.js';

const SRC = dirname(fileURLToPath(import.meta.url));
const ENTRIES = {
  main: join(SRC, 'index.ts'),
  backend: join(SRC, 'backend', 'index.ts'),
  testing: join(SRC, 'testing', 'index.ts'),
};

interface Exported {
  name: string;
  /** The declaring file, relative to `libs/mcp/src`. */
  file: string;
  isValue: boolean;
}

/** One program for the three entries; each export with the file that declares it. */
function readEntries(): Record<keyof typeof ENTRIES, Exported[]> {
  const program = ts.createProgram(Object.values(ENTRIES), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    experimentalDecorators: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const read = (entry: string): Exported[] =>
    checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(entry)!)!).map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const declaration = target.declarations![0];
      return {
        name: symbol.name,
        file: relative(SRC, declaration.getSourceFile().fileName).split('\\').join('/'),
        // A type-only export of a class is no value for the user: ask the export itself.
        isValue: (target.flags & ts.SymbolFlags.Value) !== 0 && !isTypeOnly(symbol, checker),
      };
    });
  return { main: read(ENTRIES.main), backend: read(ENTRIES.backend), testing: read(ENTRIES.testing) };
}

function isTypeOnly(symbol: ts.Symbol, checker: ts.TypeChecker): boolean {
  let current = symbol;
  for (let depth = 0; depth < 20 && current.flags & ts.SymbolFlags.Alias; depth++) {
    if (current.declarations?.some((declaration) => ts.isTypeOnlyImportOrExportDeclaration(declaration))) return true;
    const next = checker.getImmediateAliasedSymbol(current);
    if (!next) break;
    current = next;
  }
  return false;
}

/** The main entry, name by name: what an application author imports. */
const PUBLIC = [
  // the module and its options
  'McpModule',
  'McpModuleOptions',
  'McpModuleExtras',
  'McpServerInfo',
  'McpWireProfile',
  'McpSessionsOptions',
  'McpTransportOptions',
  'McpLimitsOptions',
  'McpModernOptions',
  'McpDeliveryOptions',
  'McpTasksOptions',
  'McpSkillsOptions',
  'McpTelemetryOptions',
  'McpTelemetryRequest',
  'McpProtocolVersion',
  'McpAnyProtocolVersion',
  'McpProtocolEras',
  'SUPPORTED_PROTOCOL_VERSIONS',
  'McpBackend',
  // declaring tools, resources and prompts
  'McpTool',
  'McpResource',
  'McpPrompt',
  'McpArgs',
  'McpCtx',
  'McpAuth',
  'McpRequest',
  'McpSessionId',
  'McpProtocolVersionParam',
  'McpSignal',
  'McpTransport',
  'McpToolOptions',
  'McpResourceOptions',
  'McpPromptOptions',
  'McpIcon',
  'McpCacheHints',
  'McpSchemaInput',
  'UriVariables',
  'McpCompleter',
  'McpCompletionArgs',
  'McpCompletionContext',
  'McpCompletionResult',
  'textContent',
  'imageContent',
  'audioContent',
  'resourceLink',
  'embeddedTextResource',
  'embeddedBlobResource',
  'toolText',
  'toolError',
  'toolStructured',
  'McpContentBlock',
  'McpToolResult',
  // inside handlers and enhancers
  'McpRequestContext',
  'McpRoundState',
  'JsonRpcId',
  'JsonRpcErrorObject',
  'McpExecutionContext',
  'isMcpContext',
  'McpTransportKind',
  'McpLogLevel',
  'McpElicitFormParams',
  'McpElicitUrlParams',
  'McpElicitResult',
  'McpSamplingParams',
  'McpSamplingResult',
  'McpClientRequestOptions',
  'McpRoot',
  'McpInputRequiredSignal',
  // the errors a handler throws or catches
  'McpException',
  'McpInvalidParamsException',
  'McpResourceNotFoundException',
  'McpMissingClientCapabilityException',
  'McpClientCapabilityError',
  'McpClientRequestError',
  'McpClientRequestTimeoutError',
  'McpClientUnreachableError',
  'McpDefinitionError',
  'McpBackendUnavailableError',
  // services to inject
  'ResourceNotificationService',
  'McpDeliveryReport',
  'McpResourceService',
  'McpResourceReader',
  'McpTemplateReader',
  'McpResourceRegistration',
  'McpTemplateRegistration',
  'McpServerStats',
  'McpSkills',
  'McpSkillFiles',
  'McpSkillRegistration',
  // tool hooks
  'McpToolHook',
  'McpToolHookHandler',
  'McpToolInvokingEvent',
  'McpToolCompletedEvent',
  'McpToolFailedEvent',
  'McpToolRejectedEvent',
  'McpToolRejection',
  'McpToolLoggingHook',
  'McpToolMetricsHook',
  'McpToolMetrics',
  // authorization
  'McpAuthOptions',
  'McpTokenVerifier',
  'McpTokenVerificationContext',
  'McpVerifiedToken',
  'McpPrincipal',
  'McpInvalidTokenError',
  'McpAuthServerUnavailableError',
  'RequireScopes',
  'McpJwtVerifier',
  'McpJwtVerifierOptions',
  'McpIntrospectionVerifier',
  'McpIntrospectionVerifierOptions',
  // tasks
  'McpTaskSupport',
  'McpTaskContext',
  // MCP Apps
  'McpApp',
  'McpAppOptions',
  'McpUiResourceMeta',
  'McpUiToolMeta',
  // stdio
  'runMcpStdio',
];

/**
 * Where internals live: nothing the main entry exports may be declared there, except the few
 * public names that live beside them.
 */
const INTERNAL_PLACES: { place: RegExp; except: string[] }[] = [
  { place: /^protocol\//, except: ['McpInputRequiredSignal'] },
  { place: /^transports\//, except: ['runMcpStdio'] },
  { place: /^session\//, except: ['McpServerStats'] },
  { place: /^backend\//, except: ['McpBackend', 'McpDeliveryReport'] },
  { place: /^(registry|discovery|notifications\/list-changed)/, except: [] },
  { place: /^errors\/mcp-transport\.exceptions\.ts$/, except: [] },
  { place: /^auth\/mcp-auth\.exceptions\.ts$/, except: [] },
  { place: /^mcp-options\.resolver\.ts$/, except: [] },
];

/** Internal names the main entry exported before it was cut down. */
const FORMER_INTERNALS = [
  'McpDispatcher',
  'McpSessionManager',
  'ListenerIndex',
  'McpToolRegistry',
  'McpToolEntry',
  'McpResourceEntry',
  'McpPromptEntry',
  'ResolvedMcpOptions',
  'McpSessionNotFoundException',
  'McpPayloadTooLargeException',
  'McpForbiddenOriginException',
  'McpUnsupportedProtocolVersionException',
  'McpUnauthorizedException',
  'McpSessionStore',
  'McpNotificationBus',
  'MCP_MODULE_OPTIONS',
];

/** Types an API of the main entry hands out, that no entry names: `Type <- how it is reached`. */
function unnamedTypes(read: Record<keyof typeof ENTRIES, Exported[]>): string[] {
  const program = ts.createProgram([ENTRIES.main], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    experimentalDecorators: true,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const named = new Set([...read.main, ...read.backend].map((entry) => `${entry.file}#${entry.name}`));
  const NAMED_KINDS = ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class | ts.SymbolFlags.Enum;
  const unnamed = new Map<string, string>();
  const seen = new Set<string>();
  const ids = new Map<ts.Type, number>();
  // `handedOut`: the application receives a value of this type (a return, a callback's argument)
  // rather than writing one (an option, an argument): only those are inferred into its .d.ts.
  const visit = (type: ts.Type, path: string, depth: number, handedOut: boolean): void => {
    if (!ids.has(type)) ids.set(type, ids.size);
    const key = `${ids.get(type)}:${handedOut}`;
    if (seen.has(key) || depth > 12) return;
    seen.add(key);
    const symbol = type.aliasSymbol ?? type.getSymbol();
    const declaration = symbol?.declarations?.[0];
    const file = declaration ? relative(SRC, declaration.getSourceFile().fileName).split('\\').join('/') : '';
    const ours = declaration !== undefined && !file.startsWith('..');
    if (handedOut && symbol && ours && symbol.flags & NAMED_KINDS && !named.has(`${file}#${symbol.name}`)) {
      if (!unnamed.has(symbol.name)) unnamed.set(symbol.name, path);
    }
    for (const argument of type.aliasTypeArguments ?? []) visit(argument, path, depth + 1, handedOut);
    if (type.isUnionOrIntersection()) for (const member of type.types) visit(member, path, depth + 1, handedOut);
    if (!(type.flags & ts.TypeFlags.Object) || (declaration && !ours)) return;
    for (const argument of checker.getTypeArguments(type as ts.TypeReference) ?? []) {
      visit(argument, path, depth + 1, handedOut);
    }
    // The backend seam (the `backend` option's `connect()`) is `@nest-mcp/server/backend`'s to name.
    if (file.startsWith('backend/')) return;
    for (const property of type.getProperties()) {
      const at = property.valueDeclaration ?? property.declarations?.[0];
      if (!at || ts.getCombinedModifierFlags(at) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
      visit(checker.getTypeOfSymbolAtLocation(property, at), `${path}.${property.name}`, depth + 1, handedOut);
    }
    for (const signature of type.getCallSignatures()) {
      visit(signature.getReturnType(), `${path}()`, depth + 1, handedOut);
      for (const parameter of signature.getParameters()) {
        const parameterType = checker.getTypeOfSymbolAtLocation(parameter, parameter.valueDeclaration!);
        visit(parameterType, `${path}(${parameter.name})`, depth + 1, !handedOut);
      }
    }
  };
  const module = checker.getSymbolAtLocation(program.getSourceFile(ENTRIES.main)!)!;
  for (const exported of checker.getExportsOfModule(module)) {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const at = symbol.declarations![0];
    if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
      // Written by the application (options, a hook it implements): what it receives from them counts.
      visit(checker.getDeclaredTypeOfSymbol(symbol), symbol.name, 0, false);
    } else if (symbol.flags & ts.SymbolFlags.Class) {
      // An instance's members; an injected service's constructor is Nest's to call.
      visit(checker.getDeclaredTypeOfSymbol(symbol), symbol.name, 0, true);
    } else {
      visit(checker.getTypeOfSymbolAtLocation(symbol, at), symbol.name, 0, true);
    }
  }
  return [...unnamed].map(([name, path]) => `${name} <- ${path}`).sort();
}

const entries = readEntries();
const names = (list: Exported[]) => list.map((entry) => entry.name).sort();

describe('@nest-mcp/server (application authors)', () => {
  it('exports fewer than 60 values and 120 names, exactly the public ones', () => {
    expect(entries.main.filter((entry) => entry.isValue).length).toBeLessThan(60);
    expect(entries.main.length).toBeLessThan(120);
    expect(names(entries.main)).toEqual([...PUBLIC].sort());
  });

  it('names every type its API hands to application code', () => {
    // An application compiled with `declaration: true` (as `nest new` sets up) writes the types it
    // infers from the library into its own .d.ts files, by name: a type reached only through an
    // internal file breaks its build (TS2742). What a method returns, what a handler or hook
    // receives and what an option group holds must each be importable from the main entry; the
    // backend seam's own types are `@nest-mcp/server/backend`'s.
    expect(unnamedTypes(entries)).toEqual([]);
  });

  it('exports nothing declared among the internals', () => {
    const leaks = entries.main.filter(({ name, file }) =>
      INTERNAL_PLACES.some(({ place, except }) => place.test(file) && !except.includes(name)),
    );
    expect(leaks).toEqual([]);
    expect(names(entries.main).filter((name) => FORMER_INTERNALS.includes(name))).toEqual([]);
  });

  it('exports at run time exactly the values it declares', async () => {
    const loaded = await import('./index.js');
    const values = entries.main.filter((entry) => entry.isValue).map((entry) => entry.name);
    expect(Object.keys(loaded).sort()).toEqual(values.sort());
  });
});

describe('McpModule', () => {
  it('exports to the application the services it injects, and no internals', () => {
    const services = [ResourceNotificationService, McpResourceService, McpServerStats, McpSkills];
    expect(Reflect.getMetadata(MODULE_METADATA.EXPORTS, McpModule)).toEqual(services);
    const dynamic = McpModule.forRoot({
      serverInfo: { name: 't', version: '1' },
      stdio: true,
      sse: {},
      ws: {},
      http: { mount: 'direct' },
    });
    expect(dynamic.exports ?? []).toEqual([]);
  });
});

describe('@nest-mcp/server/backend (backend authors)', () => {
  it('exports the seams, the in-memory backend and the delivery helpers, declared among the backend and the model', () => {
    // Besides them, the logger the core's own lines go through, for a backend's lines, the error
    // an unreachable store throws (declared among the errors: the library's stores throw it too),
    // and the task store seam, kept with the tasks extension.
    const declaredElsewhere = entries.backend.filter(
      ({ file }) =>
        !/^(backend|model|extensions\/tasks\/store)\//.test(file) &&
        file !== 'logging/mcp-logger.ts' &&
        file !== 'errors/mcp-backend-unavailable.error.ts',
    );
    expect(declaredElsewhere).toEqual([]);
    expect(names(entries.backend)).toEqual(
      expect.arrayContaining([
        'McpBackend',
        'McpBackendParts',
        'McpBackendUnavailableError',
        'InMemoryMcpBackend',
        'McpSessionStore',
        'McpSubscriptionStore',
        'McpConnection',
        'ListenerIndex',
        'principalDigest',
      ]),
    );
  });

  it('exports at run time exactly the values it declares', async () => {
    const loaded = await import('./backend/index.js');
    const values = entries.backend.filter((entry) => entry.isValue).map((entry) => entry.name);
    expect(Object.keys(loaded).sort()).toEqual(values.sort());
  });
});

describe('@nest-mcp/server/testing', () => {
  it('exports only the test helpers', () => {
    expect(entries.testing.filter(({ file }) => !file.startsWith('testing/'))).toEqual([]);
    expect(names(entries.testing)).toEqual(
      expect.arrayContaining(['describeBackendContract', 'FaultyMcpBackend', 'FakeConnection']),
    );
  });
});

describe('the package manifest', () => {
  it('maps each entry to its compiled index', () => {
    const manifest = JSON.parse(readFileSync(join(SRC, '..', 'package.json'), 'utf8'));
    expect(manifest.exports).toEqual({
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './backend': { types: './dist/backend/index.d.ts', default: './dist/backend/index.js' },
      './testing': { types: './dist/testing/index.d.ts', default: './dist/testing/index.js' },
      './package.json': './package.json',
    });
  });
});
