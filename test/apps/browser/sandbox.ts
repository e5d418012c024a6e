// The sandbox proxy of a web host (MCP Apps): a page on another origin than the host's, which
// renders the view in an inner iframe (sandboxed, opaque origin, the resource's CSP) and relays
// messages between the host and the view, keeping the sandbox-* ones for itself.
import { buildAllowAttribute } from '@modelcontextprotocol/ext-apps/app-bridge';
import { cspFor, withCsp, type DeclaredCsp } from './csp.js';
import { SANDBOX_METHOD_PREFIX } from './host-api.js';

const hostOrigin = new URL(location.href).searchParams.get('host') ?? '';
const inner = document.createElement('iframe');
inner.setAttribute('sandbox', 'allow-scripts allow-forms');
// The view fills the proxy's frame, which the host sizes.
inner.style.cssText = 'display: block; border: 0; width: 100%; height: 100%';
document.documentElement.style.height = '100%';
document.body.style.cssText = 'margin: 0; height: 100%';
document.body.append(inner);

const isSandboxMessage = (data: unknown): boolean =>
  typeof (data as { method?: unknown } | null)?.method === 'string' &&
  (data as { method: string }).method.startsWith(SANDBOX_METHOD_PREFIX);

interface ResourceReady {
  html: string;
  csp?: DeclaredCsp;
  permissions?: Parameters<typeof buildAllowAttribute>[0];
}

window.addEventListener('message', (event) => {
  if (event.source === window.parent && event.origin === hostOrigin) {
    const message = event.data as { method?: string; params?: ResourceReady };
    if (message?.method === `${SANDBOX_METHOD_PREFIX}resource-ready` && message.params) {
      const { html, csp, permissions } = message.params;
      const policy = cspFor(csp);
      document.body.dataset.csp = policy;
      inner.setAttribute('allow', buildAllowAttribute(permissions));
      inner.srcdoc = withCsp(html, policy);
    } else if (!isSandboxMessage(message)) {
      inner.contentWindow?.postMessage(message, '*');
    }
  } else if (event.source === inner.contentWindow && !isSandboxMessage(event.data)) {
    window.parent.postMessage(event.data, hostOrigin);
  }
});

window.parent.postMessage({ jsonrpc: '2.0', method: `${SANDBOX_METHOD_PREFIX}proxy-ready`, params: {} }, hostOrigin);
