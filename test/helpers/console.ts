import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { totpCode } from '../../src/users/totp.js';
import type { Harness } from './app.js';

export const PASSWORD = 'plum-orbit-47-lantern';

/** A browser without JavaScript, over inject: keeps cookies and the last page's CSRF token. */
export class ConsoleAgent {
  cookies = new Map<string, string>();
  csrf = '';
  /** `address`: the client address the server sees (request.ip). */
  constructor(
    private readonly app: FastifyInstance,
    readonly address = '127.0.0.1',
  ) {}

  private remember(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies) {
      if (cookie.value === '' || (cookie.expires && cookie.expires.getTime() < Date.now())) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body);
    if (token) this.csrf = token[1]!;
    return response;
  }

  private get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader }, remoteAddress: this.address }),
    );
  }

  async post(
    url: string,
    form: Record<string, string | string[]>,
    options: { csrf?: boolean; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    if (options.csrf !== false) body.append('_csrf', this.csrf);
    for (const [k, v] of Object.entries(form)) for (const value of Array.isArray(v) ? v : [v]) body.append(k, value);
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        payload: body.toString(),
        headers: { cookie: this.cookieHeader, 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
        remoteAddress: this.address,
      }),
    );
  }
}

/** Invites `email` into `org`, accepts, enrols and returns a signed-in agent and the TOTP secret. */
export async function signedInAgent(
  h: Harness,
  org: string,
  email: string,
  role: string,
): Promise<{ agent: ConsoleAgent; secret: string; codes: string[] }> {
  const users = h.users;
  const invitation = await users.invite({ org, email, role, actor: 'cli' });
  const agent = new ConsoleAgent(h.app);
  await agent.get(`/console/invite/${invitation.token}`);
  const accepted = await agent.post(`/console/invite/${invitation.token}`, { password: PASSWORD, confirm: PASSWORD });
  if (accepted.statusCode !== 303) throw new Error(`accept: ${accepted.statusCode} ${accepted.body}`);
  const enrol = await agent.get('/console/enrol');
  const secret = /id="totp-secret" class="secret">([A-Z2-7]+)</.exec(enrol.body)![1]!;
  const done = await agent.post('/console/enrol', { code: totpCode(secret, h.clock.now()) });
  if (done.statusCode !== 200) throw new Error(`enrol: ${done.statusCode}`);
  const codes = [...done.body.matchAll(/<li><code>([^<]+)<\/code><\/li>/g)].map((m) => m[1]!);
  h.clock.advance(30_000);
  return { agent, secret, codes };
}

/**
 * A browser without JavaScript against a real server process (startServer): keeps cookies and
 * the last page's CSRF token, follows no redirect by itself.
 */
export class HttpAgent {
  cookies = new Map<string, string>();
  csrf = '';
  constructor(readonly base: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: string }> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', this.cookieHeader);
    const response = await fetch(`${this.base}${path}`, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      const expired = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const body = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(body);
    if (token) this.csrf = token[1]!;
    return { status: response.status, headers: response.headers, body };
  }

  get(path: string) {
    return this.request(path);
  }

  post(path: string, form: Record<string, string>) {
    return this.request(path, { method: 'POST', body: new URLSearchParams({ _csrf: this.csrf, ...form }) });
  }

  /** Accepts an invitation link (choose the password, enrol); returns the TOTP secret. */
  async accept(url: string, password = PASSWORD): Promise<string> {
    const path = new URL(url).pathname;
    await this.get(path);
    const accepted = await this.post(path, { password, confirm: password });
    if (accepted.status !== 303) throw new Error(`accept: ${accepted.status} ${accepted.body}`);
    const enrol = await this.get('/console/enrol');
    const secret = /id="totp-secret" class="secret">([A-Z2-7]+)</.exec(enrol.body)![1]!;
    const done = await this.post('/console/enrol', { code: totpCode(secret, new Date()) });
    if (done.status !== 200) throw new Error(`enrol: ${done.status}`);
    return secret;
  }
}
