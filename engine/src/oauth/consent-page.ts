/**
 * @module oauth/consent-page
 * The pages a person sees at this server's authorization endpoint: the consent form and the error page. Everything
 * that came from a client (its name, redirect host, scopes) was chosen by whoever registered it, so all of it is
 * escaped, and the pages cannot be framed, run no script, and post only to this server.
 */
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { escapeHtml } from "../util/html";

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}" +
  ".warn{background:#fff7e0;padding:.5rem .75rem;border-radius:6px}label{display:block}button{margin-right:.5rem}";

/**
 * Why this CSP: no script at all, no resource from elsewhere, no framing (clickjacking a consent button), and
 * forms may only post here; the Allow answer redirects to the upstream login, which `formTargets` names because
 * browsers apply form-action to the redirects that follow a form post too.
 */
export function pageHeaders(headers: Headers, formTargets: readonly string[] = []): Headers {
  headers.set("content-type", "text/html; charset=utf-8");
  const formAction = ["'self'", ...formTargets].join(" ");
  headers.set(
    "content-security-policy",
    `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  headers.set("x-frame-options", "DENY");
  headers.set("x-content-type-options", "nosniff");
  headers.set("referrer-policy", "no-referrer");
  headers.set("cache-control", "no-store");
  return headers;
}

/** What happens next, when the server has scopes to choose from, and when it has none (every tool is then allowed). */
const SIGN_IN_SCOPED = "You sign in next; tools whose scopes you leave out stay hidden from this app.";
const SIGN_IN_UNSCOPED = "You sign in next; the app can then use every tool of this server as you.";

/**
 * The consent form. `scopes` are those this server grants (the tools' scopes); the ones the client asked for are
 * ticked (all of them when it asked for none). The form carries only the single-use handle that the provider bound
 * to this browser (the CSRF token): the request itself stays server-side.
 */
export function consentPage(serverName: string, details: ConsentDescription, handle: string, scopes: readonly string[]): string {
  const client = escapeHtml(details.clientName);
  const requested = details.scope.filter((scope) => scopes.includes(scope));
  const ticked = requested.length ? requested : scopes;
  const origin = details.clientDomain
    ? `Published by <strong>${escapeHtml(details.clientDomain)}</strong>.`
    : "This app registered itself: its name is not verified.";
  const boxes = scopes
    .map(
      (scope) =>
        `<label><input type="checkbox" name="scope" value="${escapeHtml(scope)}"${ticked.includes(scope) ? " checked" : ""}> <code>${escapeHtml(scope)}</code></label>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${client}?</title><style>${STYLE}</style></head>
<body>
<h1>Allow <em>${client}</em> to use ${escapeHtml(serverName)} as you?</h1>
<p>${origin} Access will be sent to <strong>${escapeHtml(details.redirectHost)}</strong>.</p>
${details.redirectIsLoopback ? '<p class="warn">This sends access to an app on your computer. Continue only if you just started connecting from it.</p>' : ""}
<form method="post" action="/authorize">
<input type="hidden" name="handle" value="${escapeHtml(handle)}">
${boxes ? `<p>It may use tools that need:</p>${boxes}<p>${SIGN_IN_SCOPED}</p>` : `<p>${SIGN_IN_UNSCOPED}</p>`}
<p><button name="decision" value="approve">Allow</button><button name="decision" value="deny">Deny</button></p>
</form>
</body></html>`;
}

/** A refusal shown here, never redirected: the client or its redirect URI is not trusted, or the form expired. */
export function errorPage(code: string, description: string, status = 400): Response {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorization failed</title><style>${STYLE}</style></head>
<body><h1>Authorization failed</h1><p><code>${escapeHtml(code)}</code>: ${escapeHtml(description)}</p>
<p>Start connecting again from your app.</p></body></html>`;
  return new Response(html, { status, headers: pageHeaders(new Headers()) });
}
