import multipart from '@fastify/multipart';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { type BodyPace, watchBodyPace } from '../../http/body-pace.js';
import { addressGroup } from '../../http/rate-limit/address-group.js';
import type { RateLimitStore } from '../../http/rate-limit/store.js';
import { createBodyBudget } from '../../sbom/http/body-budget.js';
import type { DisclosureService } from '../disclosure.service.js';
import { newFollowToken } from '../follow-token.js';
import type { PublicPages } from './pages.js';
import { MAX_FORM_BYTES, MULTIPART_LIMITS, readReport } from './read-report.js';

// The report form's post (disclosure.md): per-address limits before a byte of the body is read,
// a declared size over the maximum refused unread, the body held in a bound of its own as it
// arrives (one organisation's reports at most half of it; nothing reserved for what has not
// come), a body slower than a living pace cut, the form token checked first, attachments counted
// and measured as they stream, no input reflected, the honeypot, the confirmation page that
// shows the follow-up link once.

/**
 * disclosure.md: 10 reports per address per organisation per hour, 30 per address over all (an
 * IPv6 address counted by its /64); and DISCLOSURE_ORG_REPORTS_PER_HOUR per organisation from
 * every address together, across instances when the store is Redis.
 */
export const REPORT_LIMITS = { windowMs: 3_600_000, perOrganisation: 10, perAddress: 30 } as const;
/** Report bodies in memory at once; one organisation's hold at most half (one report of the maximum size always fits). */
const INFLIGHT_BYTES = 2 * MAX_FORM_BYTES;
/** The report form's deadline for the whole request (its attachments may be large). */
const REPORT_DEADLINE_MS = 5 * 60_000;
/**
 * The least pace of a report's body: after 10 s, 1 KiB a second over every 10 s (8 kbit/s,
 * slower than any line a reporter uses; 50 MiB of attachments take 5 minutes at 170 KiB/s).
 */
export const REPORT_BODY_PACE: BodyPace = { windowMs: 10_000, minBytesPerSecond: 1024 };

const optionalText = (max: number, label: string) =>
  Type.Optional(Type.String({ maxLength: max, message: `${label}: at most ${max} characters.` }));
const ReportForm = Type.Object({
  product: Type.Optional(Type.String({ maxLength: 100 })),
  title: optionalText(200, 'Title'),
  description: Type.String({
    minLength: 1,
    maxLength: 20_000,
    pattern: '\\S',
    message: 'Description: describe the vulnerability (up to 20000 characters).',
  }),
  cve: Type.Optional(
    Type.Union([Type.Literal(''), Type.String({ pattern: '^\\s*CVE-\\d{4}-\\d{4,}\\s*$' })], {
      message: 'CVE: give it as CVE-YYYY-NNNN, or leave it empty.',
    }),
  ),
  affected_versions: optionalText(500, 'Affected versions'),
  how_found: optionalText(5_000, 'How it was found'),
  reporter_name: optionalText(200, 'Your name'),
  reporter_contact: optionalText(300, 'How to reach you'),
  credit: optionalText(200, 'Credit'),
  website: Type.Optional(Type.String()),
});
type ReportFields = Static<typeof ReportForm>;

export async function registerReportForm(
  scope: FastifyInstance,
  deps: {
    config: Config;
    disclosure: DisclosureService;
    rateLimitStore: RateLimitStore;
    pages: PublicPages;
    /** REPORT_BODY_PACE unless a test says otherwise. */
    bodyPace?: BodyPace;
  },
): Promise<void> {
  const { config, disclosure, rateLimitStore } = deps;
  const { page, problem, notFound, tooMany, base, path, slugOf } = deps.pages;
  const bodies = createBodyBudget({ budgetBytes: INFLIGHT_BYTES, maxBodyBytes: MAX_FORM_BYTES });
  const bodyPace = deps.bodyPace ?? REPORT_BODY_PACE;
  // The report form: the only route with a multipart parser, registered in its own scope.
  await scope.register(async (upload) => {
    await upload.register(multipart, { limits: MULTIPART_LIMITS });
    // 50 MiB of attachments need longer than REQUEST_TIMEOUT_MS on a slow line: up to 5 minutes
    // (within the server's longest deadline); a body that stalls is still cut by BODY_IDLE_TIMEOUT_MS.
    const requestTimeoutMs = Math.max(config.requestTimeoutMs, Math.min(REPORT_DEADLINE_MS, config.sbomRequestTimeoutMs));
    upload.post('/:slug/report', { config: { permission: 'public', requestTimeoutMs } }, async (request, reply) => {
      // Every answer given before the body is read closes the connection: the body is never drained.
      reply.header('connection', 'close');
      const shown = await disclosure.publicPages(slugOf(request));
      if (!shown) return notFound(reply);
      const address = addressGroup(request.ip);
      // Every post counts, before a byte of its body is read: the address across all
      // organisations, then on this one, then this organisation's form from every address. In
      // that order, so that one address refused its share never spends the form's.
      for (const [bucket, limit, counted] of [
        [`disclose:address:${address}`, REPORT_LIMITS.perAddress, 'address'],
        [`disclose:org:${shown.org.id}:${address}`, REPORT_LIMITS.perOrganisation, 'address'],
        [`disclose:form:${shown.org.id}`, config.disclosureOrgReportsPerHour, 'form'],
      ] as const) {
        const decision = await rateLimitStore.consume(bucket, limit, REPORT_LIMITS.windowMs);
        if (!decision.allowed) return tooMany(reply, 'reports', decision.retryAfterSeconds, counted);
      }
      if (!request.isMultipart())
        return problem(reply, 415, 'Not accepted', 'This page takes a form sent from its own page, nothing else.');
      if (Number(request.headers['content-length']) > MAX_FORM_BYTES) return tooLarge(reply);
      // Nothing is reserved up front: what the body brings is held as it comes, so a body that
      // trickles holds what it sent, and one that trickles too slowly is cut.
      const account = bodies.account(request, reply, shown.org.id);
      if (!account) return reply;
      let refusal: 'full' | 'share' | 'gone' | null = null;
      const hold = (bytes: number) => {
        const outcome = account.take(bytes);
        if (outcome === 'held') return true;
        refusal = outcome;
        return false;
      };
      watchBodyPace(request, reply, bodyPace);
      const read = await readReport(scope, request, reply, hold);
      // Read to its end: the connection may serve the next request.
      if (read.ok) reply.removeHeader('connection');
      if (!read.ok) {
        if (read.problem === 'refused') return reply;
        if (read.problem === 'too_large') return tooLarge(reply);
        if (read.problem === 'busy') {
          if (refusal === 'gone') return reply;
          request.log.warn(
            { heldBytes: bodies.heldBytes, organisationHeldBytes: bodies.heldFor(shown.org.id), refusal },
            'report refused: report bodies fill their memory',
          );
          reply.header('retry-after', '5');
          return problem(reply, 503, 'Busy', 'Too many reports are being received right now. Try again in a few seconds.');
        }
        return problem(reply, 400, 'Bad request', 'The form could not be read. Go back and send it again.');
      }
      const fields = read.fields as ReportFields;
      const errors = [...Value.Errors(ReportForm, fields)].map((e) => e.schema.message ?? `${e.path.slice(1)}: ${e.message}`);
      if (errors.length > 0) {
        // No input is reflected: the page names what is wrong, the browser's Back keeps what was typed.
        return page(reply, 'invalid', { title: 'Report not sent', org: shown.org, errors: [...new Set(errors)], path: path(request) }, 400);
      }
      // A filled honeypot: a bot. It sees the normal confirmation, and nothing is created.
      if (fields.website?.trim()) {
        return page(reply, 'sent', {
          title: 'Report received',
          org: shown.org,
          link: `${base(request)}/follow/${newFollowToken().token}`,
          acknowledgeDays: shown.settings.acknowledgeDays,
        });
      }
      try {
        const received = await disclosure.receiveReport(shown.org.slug, {
          productId: fields.product && fields.product !== 'unsure' ? fields.product : null,
          title: fields.title ?? null,
          description: fields.description,
          cve: fields.cve?.trim() || null,
          affectedVersions: fields.affected_versions ?? null,
          howFound: fields.how_found ?? null,
          reporterName: fields.reporter_name ?? null,
          reporterContact: fields.reporter_contact ?? null,
          credit: fields.credit ?? null,
          attachments: read.files,
        });
        if (!received) return notFound(reply);
        return page(reply, 'sent', {
          title: 'Report received',
          org: shown.org,
          link: `${base(request)}/follow/${received.token}`,
          acknowledgeDays: shown.settings.acknowledgeDays,
        });
      } catch (error) {
        if (error instanceof AppError && error.code === 'validation_failed')
          return page(reply, 'invalid', { title: 'Report not sent', org: shown.org, errors: [error.message], path: path(request) }, 400);
        throw error;
      }
    });
  });

  function tooLarge(reply: FastifyReply) {
    // The rest of the body is not read: the connection closes after this answer (set above).
    return problem(
      reply,
      413,
      'Too large',
      'The report is larger than this form accepts: at most 5 attachments of at most 10 MiB each, and texts of at most 64 KiB.',
    );
  }
}
