import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

// A researcher without an account, over inject: opens the report form (its cookie and form
// token), sends multipart reports, follows the private link.

export interface UploadFile {
  filename: string;
  bytes: Buffer;
  field?: string;
}

/** A multipart/form-data body: the fields in order, then the files. */
export function multipart(fields: Array<[string, string]>, files: UploadFile[] = []): { payload: Buffer; contentType: string } {
  const boundary = `----disclosure${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of fields) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'attachments'}"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export class Reporter {
  cookies = new Map<string, string>();
  csrf = '';
  constructor(
    private readonly app: FastifyInstance,
    readonly address = '203.0.113.7',
  ) {}

  private remember(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies) this.cookies.set(cookie.name, cookie.value);
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body);
    if (token) this.csrf = token[1]!;
    return response;
  }

  get cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookie }, remoteAddress: this.address }));
  }

  /** Opens the form, then sends `fields` (the form token first, unless `csrf` is given) and `files`. */
  async report(
    slug: string,
    fields: Record<string, string>,
    files: UploadFile[] = [],
    options: { csrf?: string | null; open?: boolean } = {},
  ): Promise<LightMyRequestResponse> {
    if (options.open !== false) await this.get(`/disclose/${slug}/report`);
    const token = options.csrf === undefined ? this.csrf : options.csrf;
    const body = multipart([...(token === null ? [] : [['_csrf', token] as [string, string]]), ...Object.entries(fields)], files);
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url: `/disclose/${slug}/report`,
        payload: body.payload,
        headers: { cookie: this.cookie, 'content-type': body.contentType },
        remoteAddress: this.address,
      }),
    );
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        payload: new URLSearchParams({ _csrf: this.csrf, ...form }).toString(),
        headers: { cookie: this.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        remoteAddress: this.address,
      }),
    );
  }
}

/** The follow-up link's path on a confirmation page. */
export function followPath(body: string): string {
  const link = /id="follow-link" href="([^"]+)"/.exec(body)?.[1];
  if (!link) throw new Error(`no follow-up link on the page:\n${body}`);
  return new URL(link).pathname;
}
