/**
 * A person's browser, reduced to what an OAuth login needs: it follows redirects one at a time, keeps cookies per
 * host (ignoring `Secure`, as browsers do for 127.0.0.1), and can submit the consent form. It stops at the client's
 * redirect URI and hands back that URL, as a client's local callback server would receive it.
 */
export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  /** Follows redirects from `url` until one leads to `stopAt` (the client's redirect URI) or a page. */
  async open(url: string, stopAt: string, init: RequestInit = {}): Promise<{ url: string; response: Response }> {
    let next = url;
    let request = init;
    for (let hop = 0; hop < 10; hop++) {
      if (next.startsWith(stopAt)) return { url: next, response: new Response(null) };
      const response = await this.fetch(next, request);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) return { url: next, response };
      next = new URL(location, next).href;
      request = {};
    }
    throw new Error("too many redirects");
  }

  /** One request with this browser's cookies for the host, storing the ones the answer sets. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const host = new URL(url).host;
    const jar = this.jars.get(host) ?? new Map<string, string>();
    this.jars.set(host, jar);
    const headers = new Headers(init.headers);
    if (jar.size) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, ...value] = pair!.split("=");
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired) jar.delete(name!.trim());
      else jar.set(name!.trim(), value.join("=").trim());
    }
    return response;
  }

  /** Forgets the cookies of one host whose names start with `prefix` (an expired cookie, as the browser sees it). */
  forget(host: string, prefix: string): void {
    for (const name of this.jars.get(host)?.keys() ?? []) if (name.startsWith(prefix)) this.jars.get(host)!.delete(name);
  }

  /** Submits the consent form on `page` (at `pageUrl`) with the given decision and scopes. */
  async submitConsent(
    pageUrl: string,
    page: string,
    stopAt: string,
    decision: "approve" | "deny" = "approve",
    fields: Record<string, string> = {},
  ) {
    const handle = /name="handle" value="([^"]+)"/.exec(page)?.[1];
    if (!handle) throw new Error("no consent form on the page");
    const form = new URLSearchParams({ handle, decision, ...fields });
    for (const [, scope] of page.matchAll(/name="scope" value="([^"]+)" checked/g)) form.append("scope", scope!);
    return this.open(new URL("/authorize", pageUrl).href, stopAt, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(pageUrl).origin },
      body: form,
    });
  }
}
