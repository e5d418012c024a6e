import { describe, expect, it } from '@jest/globals';
import type { McpExtension } from '../../extension/mcp-extension.interface.js';
import { McpExtensions, withExtensionCapability } from '../../extension/mcp-extensions.js';
import { McpMethods } from './mcp-methods.js';

const table = () => new McpMethods(new McpExtensions());
const answer = async () => ({});

describe('McpMethods', () => {
  it("serves a group added for 'both' eras in each, base protocol methods or not", () => {
    const methods = table();
    methods.add({ methods: () => ({ 'skills/list': answer, 'tools/list': answer }) }, 'both');
    methods.add({ methods: () => ({ 'legacy/only': answer }) });

    expect(methods.find('legacy', 'skills/list')).toBe(answer);
    expect(methods.find('modern', 'skills/list')).toBe(answer);
    expect(methods.find('modern', 'tools/list')).toBe(answer);
    expect(methods.find('legacy', 'legacy/only')).toBe(answer);
    expect(methods.find('modern', 'legacy/only')).toBeUndefined();
  });

  it("declares the groups' capabilities, and each present extension's under capabilities.extensions in both eras", () => {
    const extensions = new McpExtensions();
    const methods = new McpMethods(extensions);
    let present = false;
    const skills: McpExtension = {
      name: 'io.modelcontextprotocol/skills',
      present: () => present,
      capabilities: (capabilities) => withExtensionCapability(capabilities, skills.name, { directoryRead: true }),
    };
    extensions.add(skills);
    extensions.add({
      name: 'example.com/other',
      capabilities: (c) => withExtensionCapability(c, 'example.com/other', {}),
    });
    methods.add({ methods: () => ({}), capability: () => ['resources', { listChanged: true }] });

    expect(methods.capabilities()).toEqual({
      resources: { listChanged: true },
      extensions: { 'example.com/other': {} },
    });
    present = true;
    const expected = { 'example.com/other': {}, 'io.modelcontextprotocol/skills': { directoryRead: true } };
    expect(methods.capabilities().extensions).toEqual(expected);
    expect(methods.modernCapabilities().extensions).toEqual(expected);
  });
});
