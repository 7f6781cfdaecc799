import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { totpCode } from '../../src/users/totp.js';
import type { Harness } from './app.js';

export const PASSWORD = 'plum-orbit-47-lantern';

/** A browser without JavaScript, over inject: keeps cookies and the last page's CSRF token. */
export class ConsoleAgent {
  cookies = new Map<string, string>();
  csrf = '';
  constructor(private readonly app: FastifyInstance) {}

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
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader } }));
  }

  async post(url: string, form: Record<string, string | string[]>, options: { csrf?: boolean } = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams();
    if (options.csrf !== false) body.append('_csrf', this.csrf);
    for (const [k, v] of Object.entries(form)) for (const value of Array.isArray(v) ? v : [v]) body.append(k, value);
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        payload: body.toString(),
        headers: { cookie: this.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
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
): Promise<{ agent: ConsoleAgent; secret: string }> {
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
  h.clock.advance(30_000);
  return { agent, secret };
}
