// The MCP OAuth pages (docs/mcp.md, "OAuth"): the consent form a user signs in on to let an
// assistant use /mcp, and the error page for a request that must not redirect (an unknown
// client, a redirect URI it did not register). Server-rendered, no script, no external asset:
// the one stylesheet is inline and allowed by its hash; forms may post only here and, after
// the consent, go on to the client's redirect URI (browsers apply form-action to the redirect).
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';

const STYLE = `body{font:16px/1.45 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.3rem}dl{background:#f3f4f6;padding:.75rem 1rem;border-radius:.4rem}dt{font-weight:600}dd{margin:0 0 .5rem}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;box-sizing:border-box;font:inherit}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}button{flex:1;padding:.6rem;font:inherit;cursor:pointer}
.error{color:#a40000;font-weight:600}.note{font-size:.85rem;color:#555}`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

const SCOPE_TEXT: Record<string, string> = {
  read: 'read your wallets, transactions, budgets and statistics',
  write: 'record transactions, transfers, wallets, categories, parties, budgets and reminders for you',
};

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface ConsentView {
  clientName: string;
  scopes: string[];
  resource: string;
  redirectUri: string;
  /** The sealed authorization request (a JWT under the app key): the form carries it back. */
  sealed: string;
  email?: string;
  error?: string;
}

function policy(formTargets: string[]): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    `form-action 'self' ${formTargets.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escape(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The consent form: who asks, for what, on which resource; the user's e-mail and password; approve or deny. */
export function sendConsentPage(reply: FastifyReply, view: ConsentView, status = 200): FastifyReply {
  const redirect = new URL(view.redirectUri);
  const scopes = view.scopes.map((scope) => `<li><b>${escape(scope)}</b>: ${escape(SCOPE_TEXT[scope] ?? scope)}</li>`).join('');
  const body = `<h1>Connect ${escape(view.clientName)} to your finances</h1>
<p><b>${escape(view.clientName)}</b> asks to use your account through the MCP server. It will be able to:</p>
<ul>${scopes}</ul>
<dl><dt>Server</dt><dd>${escape(view.resource)}</dd><dt>You will be sent back to</dt><dd>${escape(redirect.origin)}</dd></dl>
${view.error ? `<p class="error" role="alert">${escape(view.error)}</p>` : ''}
<form method="post" action="authorize">
<input type="hidden" name="request" value="${escape(view.sealed)}">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${escape(view.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit" name="decision" value="approve">Allow</button><button type="submit" name="decision" value="deny" formnovalidate>Deny</button></div>
</form>
<p class="note">Only allow an assistant you set up yourself. You can disconnect it at any time: it is listed with your MCP tokens.</p>`;
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', policy([redirect.origin]))
    .send(page(`Connect ${view.clientName}`, body));
}

/** A request that cannot go back to its client: said on a page, never redirected (RFC 6749 §4.1.2.1). */
export function sendErrorPage(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', policy([]))
    .send(page('Cannot connect', `<h1>This assistant cannot connect</h1><p class="error" role="alert">${escape(message)}</p><p>Start again from your assistant's settings.</p>`));
}
