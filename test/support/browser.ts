// A minimal browser for driving the sign-in and consent pages over real HTTP: a cookie jar that
// honours cookie paths, manual redirects, and form fields read from the returned HTML.
export interface Page {
  status: number;
  url: string;
  location: string | undefined;
  headers: Headers;
  body: string;
}

interface StoredCookie {
  value: string;
  path: string;
}

export class TestBrowser {
  private readonly cookies = new Map<string, StoredCookie>();

  /** Requests `url` and follows redirects while `follow(url)` says so (default: same origin). */
  async navigate(url: string, init: { method?: string; form?: Record<string, string>; follow?: (next: URL) => boolean } = {}): Promise<Page> {
    let current = new URL(url);
    const follow = init.follow ?? ((next: URL) => next.origin === new URL(url).origin);
    let method = init.method ?? (init.form ? 'POST' : 'GET');
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hops = 0; hops < 20; hops++) {
      const response = await fetch(current, {
        method,
        redirect: 'manual',
        headers: {
          cookie: this.cookieHeader(current),
          ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
        body,
      });
      this.store(current, response.headers.getSetCookie());
      const location = response.headers.get('location') ?? undefined;
      const text = await response.text();
      if (response.status >= 300 && response.status < 400 && location) {
        const next = new URL(location, current);
        if (!follow(next)) return { status: response.status, url: current.toString(), location: next.toString(), headers: response.headers, body: text };
        current = next;
        method = 'GET';
        body = undefined;
        continue;
      }
      return { status: response.status, url: current.toString(), location, headers: response.headers, body: text };
    }
    throw new Error('too many redirects');
  }

  /** Submits the page's form whose action contains `actionPart`, with its hidden fields plus `fields`. */
  async submit(page: Page, actionPart: string, fields: Record<string, string>, follow?: (next: URL) => boolean): Promise<Page> {
    const forms = [...page.body.matchAll(/<form\b[^>]*>[\s\S]*?<\/form>/g)].map((m) => m[0]);
    const form = forms.find((f) => (attribute(f, 'action') ?? '').includes(actionPart));
    if (!form) throw new Error(`no form with action containing ${actionPart} on ${page.url}:\n${page.body}`);
    const hidden: Record<string, string> = {};
    for (const input of form.matchAll(/<input\b[^>]*>/g)) {
      const name = attribute(input[0], 'name');
      if (name && attribute(input[0], 'type') === 'hidden') hidden[name] = attribute(input[0], 'value') ?? '';
    }
    const action = new URL(decodeEntities(attribute(form, 'action') ?? ''), page.url).toString();
    return this.navigate(action, { form: { ...hidden, ...fields }, ...(follow ? { follow } : {}) });
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name)?.value;
  }

  /** Puts a cookie in the jar, as a copied cookie would be. */
  setCookie(name: string, value: string, path = '/'): void {
    this.cookies.set(name, { value, path });
  }

  /** The Cookie header this browser would send to `url`. */
  cookieHeader(url: URL): string {
    return [...this.cookies.entries()]
      .filter(([, c]) => url.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  private store(url: URL, setCookies: string[]) {
    for (const header of setCookies) {
      const [pair, ...attributes] = header.split(';').map((part) => part.trim());
      if (!pair) continue;
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? url.pathname;
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, { value, path });
    }
  }
}

function attribute(tag: string, name: string): string | undefined {
  const match = tag.match(new RegExp(`\\s${name}="([^"]*)"`));
  return match?.[1] === undefined ? undefined : decodeEntities(match[1]);
}

function decodeEntities(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
