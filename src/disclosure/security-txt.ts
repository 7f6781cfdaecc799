// security.txt (RFC 9116) for an organisation's disclosure pages: Contact (the report form),
// Policy, Expires, Preferred-Languages and Canonical, every URL on PUBLIC_URL. CRLF or LF are
// both allowed by the RFC; LF is written.

export interface SecurityTxtInput {
  /** The organisation's pages, e.g. https://cra.example/disclose/acme */
  pagesUrl: string;
  expiresAt: string;
  preferredLanguages: string;
}

export function securityTxt(input: SecurityTxtInput): string {
  return [
    `Contact: ${input.pagesUrl}/report`,
    `Expires: ${new Date(input.expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
    `Preferred-Languages: ${input.preferredLanguages}`,
    `Canonical: ${input.pagesUrl}/security.txt`,
    `Policy: ${input.pagesUrl}`,
    '',
  ].join('\n');
}

/** "en, de": language tags (RFC 5646, simplified), comma-separated; null when not that. */
export function normaliseLanguages(raw: string): string | null {
  const tags = raw
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (tags.length === 0 || tags.length > 10) return null;
  if (!tags.every((t) => /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(t))) return null;
  return tags.join(', ');
}
