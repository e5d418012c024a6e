import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type McpProtocolVersion } from '../mcp.constants.js';
import { isAtLeast, isSupportedProtocolVersion, negotiateProtocolVersion } from './protocol-version.js';

describe('protocol version negotiation', () => {
  it('supports exactly the three 2025 versions (2025-11-25, 2025-06-18, 2025-03-26), newest first', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(['2025-11-25', '2025-06-18', '2025-03-26']);
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
  });

  describe('without a configured version', () => {
    it.each(SUPPORTED_PROTOCOL_VERSIONS)('echoes the supported requested version %s', (requested) => {
      expect(negotiateProtocolVersion(requested)).toBe(requested);
    });

    it.each([
      ['an older version', '2024-11-05'],
      ['a future version', '2026-06-01'],
      ['garbage', 'latest'],
      ['a near miss', '2025-11-25 '],
      ['another case', 'V2025-06-18'],
      ['the empty string', ''],
      ['missing', undefined],
      ['null', null],
      ['a number', 20251125],
      ['an array holding a supported version', ['2025-06-18']],
    ])('answers 2025-11-25 for %s', (_label, requested) => {
      expect(negotiateProtocolVersion(requested)).toBe('2025-11-25');
    });
  });

  describe('with a configured version (MCP_PROTOCOL_VERSION)', () => {
    it.each(SUPPORTED_PROTOCOL_VERSIONS)('always reports the configured %s', (configured) => {
      const requests: unknown[] = [...SUPPORTED_PROTOCOL_VERSIONS, '2024-11-05', 'garbage', undefined, null, 7];

      for (const requested of requests) expect(negotiateProtocolVersion(requested, configured)).toBe(configured);
    });
  });

  it('recognises only the supported versions', () => {
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) expect(isSupportedProtocolVersion(version)).toBe(true);
    for (const value of ['2024-11-05', '2025-11-26', '', undefined, null, 20250618, {}]) {
      expect(isSupportedProtocolVersion(value)).toBe(false);
    }
  });

  it.each<[McpProtocolVersion, McpProtocolVersion, boolean]>([
    ['2025-11-25', '2025-11-25', true],
    ['2025-11-25', '2025-06-18', true],
    ['2025-06-18', '2025-11-25', false],
    ['2025-03-26', '2025-06-18', false],
    ['2025-06-18', '2025-03-26', true],
  ])('isAtLeast(%s, %s) is %s', (version, minimum, expected) => {
    expect(isAtLeast(version, minimum)).toBe(expected);
  });
});
