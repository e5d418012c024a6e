import { McpDefinitionError } from '../../errors/mcp-bootstrap.errors.js';
import { thrownBy } from '../../testing/thrown.js';
import { checkedToolUiMeta, checkedUiResourceMeta } from './ui-meta.rules.js';

const WHERE = 'Board (@McpApp)';

const resourceError = (value: unknown): McpDefinitionError => {
  const error = thrownBy(() => checkedUiResourceMeta(value, WHERE));
  expect(error).toBeInstanceOf(McpDefinitionError);
  expect((error as Error).message).toContain(WHERE);
  return error as McpDefinitionError;
};

describe('checkedUiResourceMeta (the _meta.ui of a UI resource)', () => {
  it('keeps every field MCP Apps defines, as declared', () => {
    const meta = {
      csp: {
        connectDomains: ['https://api.example.com', 'wss://live.example.com:8443'],
        resourceDomains: ['https://*.cdn.example.com', 'http://localhost:5173'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://static.example.com'],
      },
      permissions: { camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} },
      domain: 'a904794854a047f6.claudemcpcontent.com',
      prefersBorder: false,
    };
    expect(checkedUiResourceMeta(meta, WHERE)).toEqual(meta);
  });

  it('returns a frozen copy, so a declaration changed later changes nothing sent', () => {
    const declared = { csp: { connectDomains: ['https://api.example.com'] } };
    const checked = checkedUiResourceMeta(declared, WHERE);
    declared.csp.connectDomains.push('https://evil.example.com');
    expect(checked).toEqual({ csp: { connectDomains: ['https://api.example.com'] } });
    expect(Object.isFrozen(checked.csp!.connectDomains)).toBe(true);
  });

  it.each([
    ["a CSP keyword ('self')", "'self'"],
    ["a CSP keyword ('unsafe-eval')", "'unsafe-eval'"],
    ['a bare wildcard', '*'],
    ['a scheme source', 'data:'],
    ['a path', 'https://api.example.com/v1'],
    ['a trailing slash', 'https://api.example.com/'],
    ['a second directive smuggled in', 'https://a.example.com; script-src *'],
    ['two sources in one entry', 'https://a.example.com https://b.example.com'],
    ['another scheme', 'ftp://files.example.com'],
    ['no scheme', 'api.example.com'],
    ['a wildcard inside the host', 'https://api.*.example.com'],
    ['an impossible port', 'https://api.example.com:70000'],
  ])('refuses %s as a CSP origin', (_what, origin) => {
    expect(resourceError({ csp: { connectDomains: [origin] } }).message).toContain('csp.connectDomains');
  });

  it.each<[string, unknown, string]>([
    ['a CSP list that is not an array', { csp: { resourceDomains: 'https://cdn.example.com' } }, 'csp.resourceDomains'],
    ['an unknown CSP directive', { csp: { scriptDomains: [] } }, "no 'scriptDomains'"],
    ['an unknown ui key', { sandbox: 'allow-scripts' }, "no 'sandbox'"],
    ['an unknown permission', { permissions: { usb: {} } }, "no 'usb'"],
    ['a permission that is not an empty object', { permissions: { camera: true } }, 'permissions.camera'],
    ['a permission with settings', { permissions: { camera: { facing: 'user' } } }, 'permissions.camera'],
    ['a domain with a space', { domain: 'a b.example.com' }, 'ui.domain'],
    ['an empty domain', { domain: '' }, 'ui.domain'],
    ['a border that is not a boolean', { prefersBorder: 'yes' }, 'prefersBorder'],
    ['ui that is not an object', ['csp'], 'ui must be an object'],
  ])('refuses %s', (_what, value, reason) => {
    expect(resourceError(value).message).toContain(reason);
  });
});

describe('checkedToolUiMeta (the _meta.ui of a tool)', () => {
  it('keeps a resourceUri and a visibility', () => {
    expect(checkedToolUiMeta({ resourceUri: 'ui://notes/board', visibility: ['app'] }, WHERE)).toEqual({
      resourceUri: 'ui://notes/board',
      visibility: ['app'],
    });
    expect(checkedToolUiMeta({ visibility: ['model', 'app'] }, WHERE)).toEqual({ visibility: ['model', 'app'] });
  });

  it.each<[string, unknown, string]>([
    ['a resourceUri outside ui://', { resourceUri: 'https://example.com/board.html' }, 'ui.resourceUri'],
    ['a resourceUri with a space', { resourceUri: 'ui://notes board' }, 'ui.resourceUri'],
    ['an empty visibility', { visibility: [] }, 'ui.visibility'],
    ['an unknown audience', { visibility: ['user'] }, 'ui.visibility'],
    ['an audience twice', { visibility: ['app', 'app'] }, 'ui.visibility'],
    ['neither field', {}, 'a resourceUri, a visibility or both'],
    ['CSP on a tool (it belongs to the resource)', { resourceUri: 'ui://a', csp: {} }, "no 'csp'"],
  ])('refuses %s', (_what, value, reason) => {
    const error = thrownBy(() => checkedToolUiMeta(value, 'Tools.board'));
    expect(error).toBeInstanceOf(McpDefinitionError);
    expect((error as Error).message).toContain('Tools.board');
    expect((error as Error).message).toContain(reason);
  });
});
