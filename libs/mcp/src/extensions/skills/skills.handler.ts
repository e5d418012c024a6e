import { Injectable } from '@nestjs/common';
import { McpAccessPolicy } from '../../auth/mcp-access.policy.js';
import type { McpRequestContext } from '../../context/mcp-request-context.js';
import { McpInvalidParamsException } from '../../errors/mcp-protocol.exceptions.js';
import { cacheableResult } from '../../model/cache-hints.js';
import type { McpExtension, McpExtensionMethod } from '../../extension/mcp-extension.interface.js';
import { withExtensionCapability } from '../../extension/mcp-extensions.js';
import { McpExtensionHost } from '../../protocol/handlers/mcp-extension.host.js';
import { requireString } from '../../protocol/handlers/params.js';
import { assertUriLength } from '../../templates/index.js';
import type { Skill, SkillScopeCheck } from './skill-catalog.js';
import { ServedSkills } from './served-skills.js';
import { McpOptions, type McpOptionGroup } from '../../mcp-option-groups.js';

/** The identifier of the skills extension, its key in `capabilities.extensions`. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** A skill entry as `skills/list` and `skills/get` carry it: the manifest of every file. */
const entryOf = (skill: Skill): Record<string, unknown> => ({
  uri: skill.uri,
  frontmatter: skill.frontmatter,
  resources: skill.files.map((file) => ({ uri: file.uri, digest: file.digest, size: file.bytes.length })),
});

/**
 * The skills extension (`io.modelcontextprotocol/skills`, docs/skills.md) in both eras, plugged
 * into the core through the extension contract when the `skills` option is set: it serves
 * `skills/list`, `skills/get` and, with `directoryRead`, `resources/directory/read`, from the
 * skills `ServedSkills` loaded (each file of which is also a resource). The extension is declared
 * under `capabilities.extensions`, in `initialize` and in `server/discover`. A skill's
 * `requiredScopes` are checked as a scoped resource's: each caller lists only the skills it may
 * use, and getting or reading one without the scopes answers 403 `insufficient_scope`.
 */
@Injectable()
export class SkillsHandler implements McpExtension {
  readonly name = SKILLS_EXTENSION;

  constructor(
    @McpOptions('skills') private readonly options: McpOptionGroup<'skills'>,
    private readonly served: ServedSkills,
    private readonly access: McpAccessPolicy,
    host: McpExtensionHost,
  ) {
    if (options.skills) host.plug(this);
  }

  /** Served once the skills are loaded (at module init). */
  present(): boolean {
    return this.served.catalog !== undefined;
  }

  capabilities(capabilities: Record<string, unknown>): Record<string, unknown> {
    return withExtensionCapability(
      capabilities,
      SKILLS_EXTENSION,
      this.options.skills?.directoryRead ? { directoryRead: true } : {},
    );
  }

  /** In both eras; each skill's scopes are checked per skill, so the methods ask for none. */
  methods(): Record<string, McpExtensionMethod> {
    const methods: Record<string, McpExtensionMethod> = {
      'skills/list': { run: async (params, ctx) => this.list(params, ctx) },
      'skills/get': { run: async (params, ctx) => this.get(params, ctx) },
    };
    // Without directoryRead the method is not declared, so it is not found either.
    if (this.options.skills?.directoryRead) {
      methods['resources/directory/read'] = { run: async (params, ctx) => this.readDirectory(params, ctx) };
    }
    return methods;
  }

  /** What the caller may see, as a check on required scopes; undefined when it sees everything. */
  private checkFor(ctx: McpRequestContext): SkillScopeCheck | undefined {
    const visible = this.access.visibleTo(ctx);
    return visible && ((requiredScopes) => visible({ requiredScopes }));
  }

  private list(params: Record<string, unknown>, ctx: McpRequestContext): Record<string, unknown> {
    const page = this.served.catalog!.page(params.cursor, this.options.pageSize, this.checkFor(ctx));
    const result: Record<string, unknown> = { skills: page.items.map(entryOf) };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return this.access.privateFor(cacheableResult(result), ctx);
  }

  private get(params: Record<string, unknown>, ctx: McpRequestContext): Record<string, unknown> {
    const uri = requireString(params, 'uri');
    assertUriLength(uri);
    const skill = this.served.catalog!.skill(uri);
    if (!skill) throw new McpInvalidParamsException(`No skill is served at ${uri}`, { uri });
    this.access.assert({ requiredScopes: this.served.catalog!.requiredScopesAt(uri) }, ctx);
    return this.access.privateFor(cacheableResult({ skill: entryOf(skill) }), ctx);
  }

  private readDirectory(params: Record<string, unknown>, ctx: McpRequestContext): Record<string, unknown> {
    const uri = requireString(params, 'uri');
    assertUriLength(uri);
    const catalog = this.served.catalog!;
    if (!catalog.isDirectory(uri)) throw new McpInvalidParamsException(`${uri} is not a directory resource`, { uri });
    // A folder of a skill needs the skill's scopes, as its files do; a prefix folder shows what is visible below it.
    this.access.assert({ requiredScopes: catalog.requiredScopesAt(uri) }, ctx);
    const page = catalog.directory(uri, params.cursor, this.options.pageSize, this.checkFor(ctx))!;
    const result: Record<string, unknown> = { resources: page.items.map((child) => child.descriptor) };
    if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
    return this.access.privateFor(cacheableResult(result), ctx);
  }
}
