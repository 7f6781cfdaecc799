import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { SbomFormat } from '../shared/sbom-format.js';
import type { VulnTables } from './schema-vulns.js';

// The tables as the repositories see them, column for column: test/db/schema-matches-migrations.test.ts
// holds these interfaces (and schema-vulns.ts) to the migrated databases of both backends.
// Dialect differences stay below this line: timestamps are RFC 3339 strings with milliseconds on
// both databases (PostgreSQL's timestamptz is parsed back into that form by db/postgres.ts),
// booleans are 0/1 integers, binary columns are Buffers; most ids are UUIDs (text on SQLite,
// uuid on PostgreSQL), while components and package versions are numbered, webhook events are
// "msg_…" and OSV records keep their own ids.

export type IntakeMode = 'signal' | 'case';
export type ProductStatus = 'active' | 'archived';
export type SbomStatus = 'none' | SbomFormat;
export type CaseStatus = 'open' | 'closed';
export type CaseKind = 'vulnerability' | 'incident';
export type StageName = 'early_warning' | 'notification' | 'intermediate' | 'final';

declare const encoding: unique symbol;

/**
 * Text a column holds in an encoding of its own (`Form` names it): a string at run time, but not
 * one to the type checker, so that a raw read cannot be used as the value it encodes (as it could
 * if this were `string & {…}`); its decoder takes it and gives the value back. The columns say
 * which decoder; writers get these from the encoders beside those decoders.
 */
export interface Encoded<Form extends string> {
  readonly [encoding]: Form;
}

/**
 * components.purl: the mark (U+0001) where the purl held the component's "name@version" when
 * `forms` holds FORMS.purlAbbreviated, else whole (src/sbom/parse/component-rows.ts, abbreviate).
 * Read through purlColumn in SQL (src/sbom/store/components.repo.ts) or expandAbbreviated.
 */
export type AbbreviatedPurl = Encoded<'purl, abbreviated where forms says so'>;
/**
 * components.ref: the mark alone when it is the purl (FORMS.refIsPurl), the mark where it held
 * "name@version" (FORMS.refAbbreviated), else whole. Read through refColumn or expandAbbreviated.
 */
export type AbbreviatedRef = Encoded<'ref, abbreviated where forms says so'>;
/**
 * components.type: empty for "library" (FORMS.typeLibrary); empty or null for none; else whole
 * (compactTypeAndLicences). Read through typeColumn or expandCompact.
 */
export type CompactType = Encoded<'type, empty for library where forms says so'>;
/**
 * components.licenses: the JSON array of licence ids or names (licensesText), or the one licence
 * alone, unquoted, when `forms` holds FORMS.licenceBare; null for none. Read through
 * licencesColumn or expandCompact.
 */
export type CompactLicences = Encoded<'licences, one bare licence where forms says so'>;

export interface OrganisationsTable {
  id: string;
  /** A small number of its own, given when it is created: what the components table stores. */
  number: Generated<number>;
  slug: string;
  name: string;
  intake_mode: IntakeMode;
  created_at: string;
  /** Last incident number handed out; the next signal gets incident_seq + 1. */
  incident_seq: Generated<number>;
  /** Sequence number and hash of the newest activity registry entry (the chain's head). */
  registry_seq: Generated<number>;
  registry_head: string;
  /** Article 14 reports: legal name, postal address, security contact, Member State of main establishment. */
  legal_name: string | null;
  postal_address: string | null;
  contact_email: string | null;
  member_state: string | null;
  /** `report` (accept and report) or `require:<profile id>` (refuse what does not conform), migration 020. */
  sbom_policy: Generated<string>;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string;
  /** Comma-separated scopes, e.g. "products:read,incidents:write". */
  scopes: string;
  digest: string;
  prefix: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** The previous secret's digest, accepted until grace_expires_at after a rotation. */
  grace_digest: string | null;
  grace_expires_at: string | null;
}

export interface ProductsTable {
  id: string;
  org_id: string;
  sku: string;
  name: string;
  /** The 14-digit form: what matching and uniqueness use (decisions §2). */
  gtin: string | null;
  /** The GTIN exactly as declared (trimmed): what the API and the CLI show. */
  gtin_declared: string | null;
  firmware_version: string | null;
  end_of_support: string | null;
  status: ProductStatus;
  sbom_status: SbomStatus;
  sbom_components: number;
  created_at: string;
  updated_at: string;
  /** JSON array of Member State codes where the product is made available, or ["EU"]. */
  markets: string | null;
}

export interface ReleasesTable {
  id: string;
  org_id: string;
  product_id: string;
  version: string;
  created_at: string;
}

export interface SbomRevisionsTable {
  id: string;
  org_id: string;
  product_id: string;
  release_id: string;
  /** 1, 2, 3 … within the release. */
  revision: number;
  format: SbomFormat;
  spec_version: string;
  /** SHA-256 (hex) of the document's bytes as received. */
  digest: string;
  components: number;
  source: string;
  ingested_at: string;
  /** The CPEs of the SBOM's subject (the device itself), newline-separated (migration 018); null when none. */
  subject_cpes: string | null;
}

/**
 * A distinct component of an organisation, stored once whatever the number of revisions listing
 * it. Its purl, ref, type and licences are stored encoded (their types say so, `forms` says
 * how): a plain `select purl from components` gives the stored form, not the purl. Readers go
 * through the repository (componentsRepo.byIds: the component as sent) or the SQL decoders of
 * src/sbom/store/components.repo.ts (purlColumn, refColumn, typeColumn, licencesColumn).
 */
/** A revision's conformance report for one profile version (migration 020, sbom-conformance.md). */
export interface SbomConformanceTable {
  sbom_id: string;
  profile: string;
  profile_version: string;
  /** 1 when the document conforms, else 0. */
  conforms: number;
  /** The missing required field ids, comma-separated in the spec's order; '' when none. */
  missing_required: string;
  /** The whole report as JSON. */
  report: string;
  created_at: string;
}

export interface ComponentsTable {
  id: Generated<number>;
  /** The organisation's number (organisations.number): millions of rows, each a few bytes, not a UUID. */
  org: number;
  /**
   * The content address, 16 bytes (migration 016): 3 of the name's (namePrefix), then the first
   * 13 of the SHA-256 of the component's fields as sent (componentText, src/sbom/parse/component-rows.ts).
   */
  key: Buffer;
  name: string;
  version: string | null;
  purl: AbbreviatedPurl | null;
  type: CompactType | null;
  licenses: CompactLicences | null;
  /** CycloneDX bom-ref, SPDX 2 SPDXID or SPDX 3 spdxId. */
  ref: AbbreviatedRef | null;
  /** 1 when the purl names another package than `name` does: such rows are in the partial purl index (migration 014), their purl stored whole. */
  purl_name_differs: number;
  /**
   * Bits of FORMS (src/sbom/parse/component-rows.ts): which of purl and ref are abbreviated, and
   * whether the type and licences take their compact forms; 0 for rows stored before 015.
   */
  forms: Generated<number>;
  /** The CPEs the SBOM gave the component, as given, newline-separated in document order (migration 018); null when none. Part of its content. */
  cpes: string | null;
}

/** A revision's components: their ids in document order, packed (src/sbom/store/id-list.ts). */
export interface SbomMembersTable {
  sbom_id: string;
  component_ids: Buffer;
}

export interface SignalsTable {
  id: string;
  org_id: string;
  incident_number: number;
  status: string;
  description: string;
  title: string | null;
  cve: string | null;
  sku: string | null;
  gtin: string | null;
  product_id: string | null;
  received_at: string;
  /** "api:<key name>", "disclosure" (the public report form) or "platform:vulnerability-intelligence" (an exploited finding). */
  source: string;
  /** The reporter a disclosure report named, sealed under CONSOLE_SECRET (shared/secret-box.ts); null otherwise. */
  reporter_name: string | null;
  reporter_contact: string | null;
  /** Why it was dismissed (status DISMISSED). */
  triage_reason: string | null;
  /** The incident number of the case it was merged into (status MERGED). */
  merged_into: number | null;
}

export interface CasesTable {
  id: string;
  org_id: string;
  signal_id: string;
  incident_number: number;
  product_id: string | null;
  title: string;
  notifiable: number;
  aware_at: string;
  early_warning_deadline: string;
  full_notification_deadline: string;
  early_warning_sent_at: string | null;
  notification_sent_at: string | null;
  status: CaseStatus;
  notes: string | null;
  created_at: string;
  closed_at: string | null;
  kind: CaseKind;
  notifiable_reason: string | null;
  fix_available_at: string | null;
  fix_description: string | null;
  advisory_published_at: string | null;
  advisory_url: string | null;
}

export interface CaseReportsTable {
  id: string;
  org_id: string;
  case_id: string;
  stage: StageName;
  seq: number;
  due_at: string | null;
  requested_at: string | null;
  /** JSON object: the draft's field values. */
  fields: string;
  updated_at: string;
  filed_at: string | null;
  srp_reference: string | null;
  filed_by: string | null;
  /** Canonical JSON of what was filed, frozen; null when the filing was recorded without content. */
  content: string | null;
  content_sha256: string | null;
  recorded_at: string | null;
}

export interface RegistryEntriesTable {
  org_id: string;
  seq: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
  /** Canonical JSON object; never holds a secret. */
  details: string;
  prev_hash: string;
  hash: string;
}

export type Role = 'owner' | 'admin' | 'analyst' | 'viewer';
export type UserStatus = 'active' | 'disabled';
/** 'enrol': password accepted, authenticator not yet enrolled; 'full': signed in. */
export type SessionStage = 'enrol' | 'full';

export interface UsersTable {
  id: string;
  /** Lower-cased. */
  email: string;
  status: UserStatus;
  /** argon2id PHC string. */
  password_hash: string;
  /** AES-256-GCM of the base32 TOTP secret under CONSOLE_SECRET; null after a 2FA reset. */
  totp_secret: string | null;
  totp_enrolled_at: string | null;
  /** The last accepted 30-second step: a code is accepted once. */
  totp_last_step: number | null;
  created_at: string;
  updated_at: string;
}

export interface MembershipsTable {
  user_id: string;
  org_id: string;
  role: Role;
  created_at: string;
}

export interface InvitationsTable {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  /** SHA-256 of the link's token; the token itself is never stored. */
  token_digest: string;
  /** "cli" or "user:<email>". */
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

export interface ConsoleSessionsTable {
  /** SHA-256 of the cookie's value. */
  id_digest: string;
  user_id: string;
  stage: SessionStage;
  created_at: string;
  last_seen_at: string;
  /** Absolute end (created + 12 h); idle end is last_seen_at + the idle limit. */
  expires_at: string;
}

export interface RecoveryCodesTable {
  user_id: string;
  digest: string;
  used_at: string | null;
}

export interface SignInFailuresTable {
  /** What is limited: "account:<email>", "address:<ip>", "pair:<email> <ip>" or "device:<digest>". */
  bucket: string;
  at: string;
  /** The attempt that recorded it (removed if it succeeds); null for rows of earlier versions. */
  attempt: string | null;
}

/** A browser a user has signed in from: its own sign-in limit (users.service.ts). */
export interface ConsoleDevicesTable {
  /** SHA-256 of the cookie's value. */
  digest: string;
  user_id: string;
  created_at: string;
  last_used_at: string;
}

export type WebhookEndpointStatus = 'active' | 'disabled';
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookEndpointsTable {
  id: string;
  org_id: string;
  url: string;
  /** "*" or a comma-separated list of event types. */
  event_types: string;
  /**
   * The "whsec_…" secret sealed under CONSOLE_SECRET (webhooks/secret-storage.ts): it must be
   * readable to sign, so it cannot be a digest. Read through WebhookSecrets.open.
   */
  secret: string;
  /** The secret before the last rotation, sealed as `secret`, still signed with until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  status: WebhookEndpointStatus;
  disabled_at: string | null;
  disabled_reason: string | null;
  /** When the current run of failed attempts began; null after a success. */
  failing_since: string | null;
  created_at: string;
}

export interface WebhookEventsTable {
  /** "msg_…": the webhook-id header, the same on every retry. */
  id: string;
  org_id: string;
  type: string;
  /** The exact JSON body sent (and signed) on every attempt. */
  payload: string;
  created_at: string;
  dedup_key: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  org_id: string;
  event_id: string;
  endpoint_id: string;
  status: WebhookDeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: string;
  /** Retries stop once the retry window (WEBHOOK_RETRY_WINDOW_MS, 24 h by default) has passed since this instant (creation or replay). */
  retry_from: string;
  /** Which claim holds the delivery, until claimed_until; past it, another dispatcher may take it over. */
  claim_token: string | null;
  claimed_until: string | null;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  completed_at: string | null;
  created_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

export interface SchedulerRunsTable {
  job: string;
  slot: string;
  at: string;
}

/** One-time first-run set-up links (migration 009): the token's digest only; cleared at every server start. */
export interface SetupLinksTable {
  token_digest: string;
  created_at: string;
  /** `server` (printed at start) or `cli` (`cra-admin setup-link`). */
  created_by: string;
}

/** Rewritten by readiness while writes are failing (migration 006). */
export interface WriteProbeTable {
  id: number;
  writes: number;
}

/** An organisation's public disclosure pages (migration 012); no row: never enabled. */
export interface DisclosureSettingsTable {
  org_id: string;
  enabled: number;
  /** Markdown, rendered with raw HTML off. */
  policy: string;
  acknowledge_days: number;
  /** security.txt's Preferred-Languages, e.g. "en, de". */
  preferred_languages: string;
  /** security.txt's Expires: at most a year ahead, renewed in the console. */
  expires_at: string;
  updated_at: string;
}

/** A report received through the disclosure form: the signal it became and its follow-up link. */
export interface DisclosureReportsTable {
  signal_id: string;
  org_id: string;
  /** SHA-256 (hex) of the follow-up link's token (32 random bytes, base64url); never the token. */
  token_digest: string;
  revoked_at: string | null;
  affected_versions: string | null;
  how_found: string | null;
  /** How the reporter wants to be credited, sealed like their name (migration 017); null: not given. */
  sealed_credit: string | null;
  created_at: string;
}

export interface DisclosureMessagesTable {
  id: string;
  org_id: string;
  signal_id: string;
  author: 'reporter' | 'team';
  /** "reporter", or the team member ("user:<email>", "cli"). */
  actor: string;
  body: string;
  created_at: string;
}

export interface DisclosureAttachmentsTable {
  id: string;
  org_id: string;
  signal_id: string;
  position: number;
  /** Where the attachment store keeps the sealed bytes; never leaves the store's callers. */
  storage_key: string;
  /** The file name as sent, sealed (it may name the reporter). */
  sealed_name: string;
  size: number;
  created_at: string;
}

/** Sealed attachment bytes on PostgreSQL (SQLite keeps them in files under ATTACHMENTS_DIR). */
export interface DisclosureBlobsTable {
  storage_key: string;
  data: Buffer;
  created_at: string;
}

/**
 * An SBOM document as received, compressed, once per SHA-256 (migration 019). A revision's
 * document is the row whose digest is the revision's; read only through that revision
 * (src/sbom/store/sbom-documents.repo.ts).
 */
export interface SbomDocumentsTable {
  /** SHA-256 (hex) of the bytes as received. */
  digest: string;
  /** How `content` is compressed: 'br' (brotli). */
  encoding: 'br';
  /** Bytes as received. */
  size: number;
  /** Bytes of `content`. */
  stored_size: number;
  content: Buffer;
  created_at: string;
}

export interface DB extends VulnTables {
  organisations: OrganisationsTable;
  api_keys: ApiKeysTable;
  products: ProductsTable;
  releases: ReleasesTable;
  sbom_revisions: SbomRevisionsTable;
  sbom_conformance: SbomConformanceTable;
  sbom_documents: SbomDocumentsTable;
  components: ComponentsTable;
  sbom_members: SbomMembersTable;
  signals: SignalsTable;
  cases: CasesTable;
  case_reports: CaseReportsTable;
  registry_entries: RegistryEntriesTable;
  users: UsersTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  console_sessions: ConsoleSessionsTable;
  recovery_codes: RecoveryCodesTable;
  sign_in_failures: SignInFailuresTable;
  console_devices: ConsoleDevicesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  scheduler_runs: SchedulerRunsTable;
  write_probe: WriteProbeTable;
  setup_links: SetupLinksTable;
  disclosure_settings: DisclosureSettingsTable;
  disclosure_reports: DisclosureReportsTable;
  disclosure_messages: DisclosureMessagesTable;
  disclosure_attachments: DisclosureAttachmentsTable;
  disclosure_blobs: DisclosureBlobsTable;
}

export type Organisation = Selectable<OrganisationsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type ProductRow = Selectable<ProductsTable>;
export type NewProduct = Insertable<ProductsTable>;
export type ProductUpdate = Updateable<ProductsTable>;
export type SignalRow = Selectable<SignalsTable>;
export type CaseRow = Selectable<CasesTable>;
export type CaseReportRow = Selectable<CaseReportsTable>;
export type RegistryEntryRow = Selectable<RegistryEntriesTable>;
export type UserRow = Selectable<UsersTable>;
export type InvitationRow = Selectable<InvitationsTable>;
export type ConsoleSessionRow = Selectable<ConsoleSessionsTable>;
export type ConsoleDeviceRow = Selectable<ConsoleDevicesTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;
export type DisclosureSettingsRow = Selectable<DisclosureSettingsTable>;
export type DisclosureReportRow = Selectable<DisclosureReportsTable>;
export type DisclosureMessageRow = Selectable<DisclosureMessagesTable>;
export type DisclosureAttachmentRow = Selectable<DisclosureAttachmentsTable>;
