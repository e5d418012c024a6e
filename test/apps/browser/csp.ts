/** The `_meta.ui.csp` of a UI resource (MCP Apps). */
export interface DeclaredCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/**
 * The Content Security Policy a host puts on a view, built from the domains its UI resource
 * declares as MCP Apps says: nothing but the view itself and inline code by default; declared
 * origins added to their directives, and nothing undeclared.
 */
export function cspFor(csp: DeclaredCsp | undefined): string {
  const list = (domains: string[] | undefined) => (domains ?? []).join(' ');
  const resources = list(csp?.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `connect-src ${list(csp?.connectDomains) || "'none'"}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `frame-src ${list(csp?.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${list(csp?.baseUriDomains) || "'self'"}`,
  ]
    .map((directive) => directive.trim())
    .join('; ');
}

/** The view's HTML with the policy as its first `<head>` element, before any script can run. */
export function withCsp(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (!head) return meta + html;
  const at = head.index + head[0].length;
  return html.slice(0, at) + meta + html.slice(at);
}
