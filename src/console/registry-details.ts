// The details of an activity registry entry as the console shows them: readable fields ("aware
// at 25 Nov 10:21 UTC · vulnerability · notifiable"), one formatter per action and a generic one
// for the rest (and for any entry whose details are not what its formatter expects); the raw
// JSON stays beside them, behind a disclosure.

type Details = Record<string, unknown>;
type Part = string | null | undefined | false;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const pad = (n: number) => String(n).padStart(2, '0');

/** "25 Nov 10:21 UTC"; the year too when it is not the entry's own. */
export function shortTime(value: string, entryAt?: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  const year = entryAt && new Date(entryAt).getUTCFullYear() === d.getUTCFullYear() ? '' : ` ${d.getUTCFullYear()}`;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}${year} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown) => (typeof v === 'number' ? v : null);
const digest = (v: unknown) => (str(v) ? `sha256 ${String(v).slice(0, 12)}…` : null);
const FORMATS: Record<string, string> = { cyclonedx: 'CycloneDX', spdx: 'SPDX' };
const STAGES: Record<string, string> = {
  early_warning: 'early warning',
  'early-warning': 'early warning',
  notification: 'notification',
  intermediate: 'intermediate report',
  final: 'final report',
};

/** Member States as stored (a JSON list), in words. */
function markets(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const list = JSON.parse(value) as unknown;
    return Array.isArray(list) && list.length > 0 ? `markets ${list.join(', ')}` : null;
  } catch {
    return `markets ${value}`;
  }
}

/** One formatter per action: the fields that matter, in words. `t` writes a time. */
const FORMATTERS: Record<string, (d: Details, t: (v: unknown) => string | null) => Part[]> = {
  'signal.received': (d) => [
    d.product_sku ? `product ${d.product_sku}` : 'no product matched',
    str(d.cve),
    d.intake_mode === 'case' ? 'opened as a case' : null,
  ],
  'signal.dismissed': (d) => [`reason: ${d.reason}`],
  'signal.merged': (d) => [`into case ${d.merged_into}`, str(d.cve)],
  'signal.attributed': (d) => [`product ${d.product_sku}`, d.previous_product_sku ? `was ${d.previous_product_sku}` : 'had none'],
  'case.opened': (d, t) => [
    `aware at ${t(d.aware_at)}`,
    str(d.kind),
    d.notifiable ? 'notifiable' : `not notifiable${d.notifiable_reason ? `: ${d.notifiable_reason}` : ''}`,
    d.product_sku ? `product ${d.product_sku}` : null,
  ],
  'case.early_warning_recorded': (d, t) => [
    `early warning sent at ${t(d.sent_at)}`,
    d.on_time ? 'on time' : 'late',
    'without report content',
  ],
  'case.notification_recorded': (d, t) => [
    `notification sent at ${t(d.sent_at)}`,
    d.on_time ? 'on time' : 'late',
    'without report content',
  ],
  'case.report_filed': (d, t) => [
    `${STAGES[String(d.stage)] ?? d.stage}${d.stage === 'intermediate' ? ` ${d.seq}` : ''} filed at ${t(d.filed_at)}`,
    d.on_time ? 'on time' : 'late',
    str(d.srp_reference) && `SRP ${d.srp_reference}`,
    digest(d.content_sha256),
  ],
  'case.intermediate_requested': (d, t) => [`intermediate report ${d.seq} due ${t(d.due)}`],
  'case.fix_available': (d, t) => [`fix available at ${t(d.available_at)}`, str(d.description)],
  'case.note_added': (d) => [`a note of ${d.characters} characters (the text is confidential)`],
  'case.advisory_published': (d, t) => [`advisory published at ${t(d.published_at)}`, str(d.url)],
  'case.closed': (d) => [
    d.early_warning_sent ? 'early warning sent' : 'no early warning',
    d.notification_sent ? 'notification sent' : 'no notification',
  ],
  'sbom.ingested': (d) => [
    `release ${d.release}, revision ${d.revision}`,
    num(d.components) !== null && `${d.components} components`,
    `${FORMATS[String(d.format)] ?? d.format} ${d.spec_version}`,
    digest(d.digest),
  ],
  'key.created': (d, t) => [
    `prefix ${d.prefix}`,
    Array.isArray(d.scopes) && d.scopes.join(', '),
    d.expires_at ? `expires ${t(d.expires_at)}` : 'no expiry',
  ],
  'key.rotated': (d, t) => [
    `prefix ${d.prefix} (was ${d.previous_prefix})`,
    d.grace_until ? `the old secret works until ${t(d.grace_until)}` : 'the old secret ended at once',
  ],
  'key.revoked': (d) => [`prefix ${d.prefix}`],
  'user.invited': (d, t) => [str(d.role), `valid until ${t(d.expires_at)}`],
  'user.joined': (d) => [str(d.role)],
  'member.role_changed': (d) => [`${d.from} → ${d.to}`],
  'member.removed': (d) => [`was ${d.role}`],
  'product.added': (d, t) => [
    str(d.name),
    str(d.firmware_version) && `firmware ${d.firmware_version}`,
    str(d.gtin_declared) && `GTIN ${d.gtin_declared}`,
    str(d.end_of_support) && `end of support ${t(d.end_of_support)}`,
    markets(d.markets),
  ],
  'product.archived': () => ['archived'],
  'org.created': (d) => [str(d.name), `intake mode ${d.intake_mode}`],
  'org.intake_mode_changed': (d) => [`intake mode ${d.from} → ${d.to}`],
  'disclosure.settings_changed': (d, t) => [
    d.enabled ? 'pages enabled' : 'pages disabled',
    num(d.acknowledge_days) !== null && `acknowledge within ${d.acknowledge_days} days`,
    str(d.preferred_languages) && `languages ${d.preferred_languages}`,
    str(d.expires_at) && `security.txt expires ${t(d.expires_at)}`,
  ],
  'disclosure.report_received': (d) => [
    `${d.attachments} attachment${d.attachments === 1 ? '' : 's'}`,
    d.anonymous ? 'anonymous' : 'reporter named (sealed)',
  ],
  'disclosure.identity_read': () => ["the reporter's name and contact were shown"],
  'disclosure.message_sent': (d) => [d.author === 'reporter' ? 'from the reporter' : 'to the reporter'],
  'disclosure.link_revoked': () => ["the reporter's follow-up link was revoked"],
  'webhook.endpoint_added': (d) => [str(d.url), Array.isArray(d.events) && `events ${d.events.join(', ')}`],
  'webhook.secret_rotated': (d, t) => [d.grace_until ? `the old secret signs until ${t(d.grace_until)}` : 'the old secret ended at once'],
  'webhook.delivery_replayed': (d) => [`event ${d.event_id}`],
  'finding.analysed': (d) => [
    `${d.vulnerability} on ${d.product_sku}`,
    String(d.state).replace(/_/g, ' '),
    'justification' in d && str(d.justification) && String(d.justification).replace(/_/g, ' '),
    'responses' in d && Array.isArray(d.responses) && d.responses.length > 0 && `responses ${d.responses.join(', ')}`,
    'rule' in d && 'by a rule for later findings',
  ],
  'finding.rule_added': (d, t) => [
    `${d.vulnerability}: ${String(d.state).replace(/_/g, ' ')} for later findings`,
    d.purl ? `of ${d.purl}` : 'on any component',
    d.until ? `until ${t(d.until)}` : 'without end',
  ],
  'findings.changed': (d) => [`${d.new} new`, `${d.resolved} resolved`],
  'component.cpe_mapped': (d) => [`${d.cpe} confirmed for components named ${d.name}`],
  'component.cpe_unmapped': (d) => [`${d.cpe} no longer confirmed for components named ${d.name}`],
};

/** Any details: each field as "name value", times as times, true fields by name, empty ones left out. */
function generic(d: Details, t: (v: unknown) => string | null): Part[] {
  return Object.entries(d).map(([key, value]) => {
    if (key === 'incident_number' || value === null || value === undefined || value === '') return null;
    const name = key.replace(/_/g, ' ');
    if (value === true) return name;
    if (value === false) return `not ${name}`;
    if (typeof value === 'string' && ISO.test(value)) return `${name} ${t(value)}`;
    if (Array.isArray(value)) return `${name} ${value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ')}`;
    if (typeof value === 'object') return `${name} ${JSON.stringify(value)}`;
    const text = String(value);
    if (/^[0-9a-f]{40,}$/.test(text)) return `${name} ${text.slice(0, 12)}…`;
    return `${name} ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
  });
}

const joined = (parts: Part[]) => parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' · ');

/** An entry's details in words, and its JSON laid out for reading (or as stored, if it is not JSON). */
export function describeEntry(entry: { action: string; details: string; at: string }): { text: string; json: string } {
  let details: unknown;
  try {
    details = JSON.parse(entry.details);
  } catch {
    return { text: entry.details, json: entry.details };
  }
  const json = JSON.stringify(details, null, 2);
  if (!details || typeof details !== 'object' || Array.isArray(details)) return { text: String(entry.details), json };
  const d = details as Details;
  const t = (v: unknown) => (typeof v === 'string' ? shortTime(v, entry.at) : null);
  return { text: formatted(entry.action, d, t) || joined(generic(d, t)) || '—', json };
}

/**
 * The action's formatter, or '' when it has none or the details lack a field it reads (an entry
 * written before that field existed): then the generic one speaks.
 */
function formatted(action: string, d: Details, t: (v: unknown) => string | null): string {
  const formatter = FORMATTERS[action];
  if (!formatter) return '';
  let missing = false;
  const watched = new Proxy(d, {
    get(target, key) {
      if (typeof key === 'string' && !(key in target)) missing = true;
      return target[key as string];
    },
  });
  try {
    const text = joined(formatter(watched, t));
    return missing ? '' : text;
  } catch {
    return '';
  }
}
