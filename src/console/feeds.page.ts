import type { FastifyInstance } from 'fastify';
import { feedSourceLabel } from '../vulns/feeds/source-label.js';
import type { ConsoleDeps } from './context.js';
import { render } from './render.js';

// Feeds: the vulnerability feeds this instance holds (platform-wide, one copy for every
// organisation): each feed's records, last import, newest entry and source (its kind and host
// only: a path or a mirror's query string is the operator's business), a warning for a feed
// older than a week or never imported, and how to import (cra-admin, or VULN_FEEDS). Owners and
// admins see it; the feeds are the instance's, so nothing here is changed from the console.

/** A feed not imported for this long is stale: KEV catalogues and OSV change daily. */
export const STALE_AFTER_MS = 7 * 86_400_000;

const ABOUT: Record<string, string> = {
  osv: 'OSV advisories: affected packages and version ranges (what components are matched against)',
  'cisa-kev': "CISA's Known Exploited Vulnerabilities catalogue",
  'eu-kev': "the EU CSIRTs Network's Known Exploited Vulnerabilities list, with EUVD ids",
  epss: "FIRST's exploit prediction scores (EPSS)",
  euvd: "ENISA's EU Vulnerability Database: EUVD ids of CVEs and its list of exploited vulnerabilities",
  nvd: "the NVD's CVE records: CPE configurations (what firmware components are matched against), descriptions and CVSS",
};

export function registerFeedsPage(org: FastifyInstance, deps: ConsoleDeps): void {
  org.get('/feeds', { config: { permission: 'feeds' } }, async (request, reply) => {
    const now = deps.clock().getTime();
    const feeds = (await deps.vulns.feeds()).map((f) => {
      const age = f.last_import_at ? now - Date.parse(f.last_import_at) : null;
      return {
        ...f,
        source: feedSourceLabel(f.kind, f.source),
        about: ABOUT[f.kind] ?? f.kind,
        days: age === null ? null : Math.floor(age / 86_400_000),
        stale: age === null || age > STALE_AFTER_MS,
      };
    });
    const { urls, everyMs } = deps.config.feeds;
    return render(request, reply, 'feeds', {
      title: 'Feeds',
      section: 'feeds',
      feeds,
      stale: feeds.filter((f) => f.stale),
      schedule: urls.length ? { count: urls.length, hours: Math.round((everyMs / 3_600_000) * 10) / 10 } : null,
    });
  });
}
