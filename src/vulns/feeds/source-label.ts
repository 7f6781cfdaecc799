// What the console may say about where a feed came from. Feeds are the instance's, shown to the
// owners and admins of every organisation, while a source as imported may be a path on the
// server or a mirror's URL with a token in its query string: the label keeps the feed's kind and
// the URL's host, never a path, a query, a port or credentials. The operator's
// `cra-admin vuln feeds` shows sources whole.

/** "osv · osv-vulnerabilities.storage.googleapis.com", "epss · local file"; null: never imported. */
export function feedSourceLabel(kind: string, source: string | null): string | null {
  if (source === null || source.trim() === '') return null;
  return `${kind} · ${hostOf(source) ?? 'local file'}`;
}

/** The host of an http(s) URL; null for anything else (a path, a relative name, a malformed URL). */
function hostOf(source: string): string | null {
  let url: URL;
  try {
    url = new URL(source.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  return url.hostname || null;
}
