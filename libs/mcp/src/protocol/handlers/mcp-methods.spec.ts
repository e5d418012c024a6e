import { describe, expect, it } from '@jest/globals';
import { McpExtensions } from '../../extension/mcp-extensions.js';
import type { McpMethodGroup } from './mcp-method.types.js';
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

  it("declares the groups' extensions under capabilities.extensions in both eras, while they are available", () => {
    const methods = table();
    let available = false;
    const skills: McpMethodGroup = {
      methods: () => ({}),
      available: () => available,
      extensions: () => ({ 'io.modelcontextprotocol/skills': { directoryRead: true } }),
    };
    methods.add(skills, 'both');
    methods.add({ methods: () => ({}), extensions: () => ({ 'example.com/other': {} }) });
    methods.add({ methods: () => ({}), capability: () => ['resources', { listChanged: true }] });

    expect(methods.capabilities()).toEqual({
      resources: { listChanged: true },
      extensions: { 'example.com/other': {} },
    });
    available = true;
    const expected = { 'example.com/other': {}, 'io.modelcontextprotocol/skills': { directoryRead: true } };
    expect(methods.capabilities().extensions).toEqual(expected);
    expect(methods.modernCapabilities().extensions).toEqual(expected);
  });
});
