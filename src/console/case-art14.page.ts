import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ReportView } from '../cases/case-reports.service.js';
import { checkFields, fieldLabel, formFields, type ReportFields } from '../cases/report-catalogue.js';
import type { StageName } from '../cases/stage-rules.js';
import { AppError } from '../errors.js';
import { numberOf, renderCase, stageSlug, stageTitle } from './case-page.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm, parseUtcInput, serviceErrors, UTC_INPUT } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// Article 14 on the case page (art14.md): each stage's report form, pre-filled and checked
// against the field catalogue, its filing and plain-text export; the corrective measure and the
// CSIRT's requests for intermediate reports; the 14(8) CSAF advisory, the evidence bundle and
// confidential notes. Every change goes through the same services as `cra-admin case …`.

function parseStageSlug(raw: string): { stage: StageName; seq?: number } {
  const m = /^(early-warning|notification|final|intermediate-([1-9]\d{0,5}))$/.exec(raw);
  if (!m) throw new AppError('not_found', 'no such stage');
  if (m[2]) return { stage: 'intermediate', seq: Number(m[2]) };
  return { stage: m[1] === 'early-warning' ? 'early_warning' : (m[1] as StageName) };
}

// Fields whose answers run to sentences get a text area.
const LONG_FIELDS = new Set([
  'summary',
  'manufacturer_address',
  'nature',
  'corrective_measures',
  'user_measures',
  'description',
  'impact',
  'threat_or_root_cause',
  'remediation',
  'status_update',
]);

const time = (message: string, required = false) =>
  Type.String({ pattern: required ? UTC_INPUT.replace(')?$', ')$') : UTC_INPUT, message });
const FileForm = Type.Object({
  reference: Type.String({ minLength: 1, maxLength: 200, message: 'Give the reference the SRP gave this report.' }),
  filed_at: time('Give the time it was submitted as YYYY-MM-DDTHH:MM in UTC, or leave it empty for now.'),
});
const FixForm = Type.Object({
  fix_at: time('Give the time the measure became available as YYYY-MM-DDTHH:MM in UTC, or leave it empty for now.'),
  fix_description: Type.String({ maxLength: 2000, message: 'At most 2000 characters.' }),
});
const IntermediateForm = Type.Object({
  due: time('Give the due time the CSIRT set as YYYY-MM-DDTHH:MM in UTC.', true),
});
const NoteForm = Type.Object({
  note: Type.String({ minLength: 1, maxLength: 10_000, trim: false, message: 'Write a note of 1 to 10000 characters.' }),
});
const PublishedForm = Type.Object({
  advisory_url: Type.String({ pattern: '^https?://\\S+$', maxLength: 2000, message: 'Give the http(s) address where it was published.' }),
  advisory_at: time('Give the publication time as YYYY-MM-DDTHH:MM in UTC, or leave it empty for now.'),
});

/** A report value as typed in a form field: lists comma-separated. */
const shown = (v: ReportFields[string] | undefined) => (v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v);

/** The service's per-field messages ("key: why; key: why") beside their fields. */
function fieldErrors(errors: readonly string[]): FieldErrors {
  const out: FieldErrors = {};
  for (const e of errors) {
    const at = e.indexOf(': ');
    const key = at > 0 ? e.slice(0, at) : '_form';
    out[key] ??= at > 0 ? e.slice(at + 2) : e;
  }
  return out;
}

function download(reply: FastifyReply, name: string, type: string, body: string): FastifyReply {
  return reply.type(type).header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'no-store').send(body);
}

export function registerCaseArticle14(org: FastifyInstance, deps: ConsoleDeps): void {
  const caseUrl = (request: FastifyRequest) => `/console/o/${encodeURIComponent(orgSlug(request))}/cases/${numberOf(request)}`;
  const stageOf = (request: FastifyRequest) => parseStageSlug((request.params as { stage: string }).stage);

  /** The case page again, with a form's errors beside its fields. */
  const caseError = (
    request: FastifyRequest,
    reply: FastifyReply,
    errors: FieldErrors,
    values: Record<string, unknown> = {},
    status = 400,
  ) => renderCase(deps, request, reply, { errors, values }, status);

  /** A change from the case page: its form, then the service, then back to the case (errors beside the field). */
  function caseAction<T extends TObject>(
    path: string,
    schema: T,
    field: string,
    anchor: string,
    act: (request: FastifyRequest, value: Static<T>) => Promise<unknown>,
  ) {
    org.post(`/cases/:number${path}`, { config: { permission: 'cases' } }, async (request, reply) => {
      const form = parseForm(schema, request.body);
      if (!form.ok) return caseError(request, reply, form.errors, form.values);
      try {
        await act(request, form.value);
      } catch (error) {
        if (error instanceof AppError && error.code === 'not_found') throw error;
        const status = error instanceof AppError && error.code === 'conflict' ? 409 : 400;
        return caseError(
          request,
          reply,
          serviceErrors(error, status === 409 ? '_form' : field),
          form.value as Record<string, unknown>,
          status,
        );
      }
      return redirect(request, reply, `${caseUrl(request)}#${anchor}`);
    });
  }

  /** A typed time, or a field error when it names no real instant. */
  function timeOf(raw: string): Date | undefined {
    const at = parseUtcInput(raw);
    if (at === null) throw new AppError('validation_failed', `the time ${raw} does not exist`);
    return at;
  }

  caseAction('/fix', FixForm, 'fix_at', 'measures', (request, value) =>
    deps.reports.recordFix(
      orgSlug(request),
      numberOf(request),
      timeOf(value.fix_at) ?? deps.clock(),
      value.fix_description || undefined,
      actorOf(request.viewer!),
    ),
  );
  caseAction('/intermediate', IntermediateForm, 'due', 'deadlines-title', (request, value) =>
    deps.reports.requestIntermediate(orgSlug(request), numberOf(request), timeOf(value.due)!, actorOf(request.viewer!)),
  );
  caseAction('/notes', NoteForm, 'note', 'notes-title', (request, value) =>
    deps.cases.addNote(orgSlug(request), numberOf(request), value.note, actorOf(request.viewer!)),
  );
  caseAction('/advisory-published', PublishedForm, 'advisory_url', 'measures', (request, value) =>
    deps.evidence.advisory(orgSlug(request), numberOf(request), {
      url: value.advisory_url,
      at: timeOf(value.advisory_at),
      actor: actorOf(request.viewer!),
    }),
  );

  // Live clocks: the deadlines table alone, refreshed in place by htmx every 30 s.
  org.get('/cases/:number/deadlines', { config: { permission: 'read' } }, (request, reply) =>
    renderCase(deps, request, reply, {}, 200, 'case-deadlines-table'),
  );

  // 14(8): the CSAF 2.0 advisory, and the evidence bundle of `cra-admin case export`.
  org.get('/cases/:number/advisory.json', { config: { permission: 'read' } }, async (request, reply) => {
    const number = numberOf(request);
    try {
      const advisory = await deps.evidence.advisory(orgSlug(request), number);
      return download(reply, `case-${number}-csaf.json`, 'application/json', `${JSON.stringify(advisory, null, 2)}\n`);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw error;
      return caseError(request, reply, serviceErrors(error), {}, 409);
    }
  });
  org.get('/cases/:number/export.json', { config: { permission: 'read' } }, async (request, reply) => {
    const number = numberOf(request);
    const bundle = await deps.evidence.exportCase(orgSlug(request), number);
    return download(reply, `case-${number}-evidence.json`, 'application/json', `${JSON.stringify(bundle, null, 2)}\n`);
  });

  // One stage's report: the form (draft), the filing, the plain-text export.
  async function reportPage(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; values?: Record<string, string>; notice?: string; report?: ReportView } = {},
    status = 200,
  ) {
    const { stage, seq } = stageOf(request);
    const number = numberOf(request);
    let report: ReportView;
    try {
      report = extra.report ?? (await deps.reports.getReport(orgSlug(request), number, stage, seq));
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict')
        return render(request, reply, 'error', { title: 'No such report', message: error.message }, 409);
      throw error;
    }
    const kase = await deps.cases.getCase(orgSlug(request), number);
    const fields = formFields(stage, report.kind).map((f) => ({
      key: f.key,
      label: fieldLabel(f, report.kind),
      type: f.type,
      options: f.options,
      required: f.required,
      long: LONG_FIELDS.has(f.key),
      prefilled: report.prefilled.includes(f.key),
      value: extra.values?.[f.key] ?? shown(report.fields[f.key]),
    }));
    const label = (key: string) => fields.find((f) => f.key === key)?.label ?? key;
    return render(
      request,
      reply,
      'case-report',
      {
        title: `Case ${number}: ${stageTitle(stage, report.seq, report.kind)}`,
        section: 'cases',
        kase,
        report,
        heading: stageTitle(stage, report.seq, report.kind),
        fields,
        missing: report.missing.map((key) => ({ key, label: label(key) })),
        caseBase: caseUrl(request),
        reportBase: `${caseUrl(request)}/reports/${stageSlug(stage, report.seq)}`,
        ...extra,
        values: extra.values ?? {},
      },
      status,
    );
  }

  org.get('/cases/:number/reports/:stage', { config: { permission: 'read' } }, (request, reply) =>
    reportPage(request, reply, { notice: (request.query as { saved?: string }).saved === '1' ? 'Draft saved.' : undefined }),
  );

  org.post('/cases/:number/reports/:stage', { config: { permission: 'cases' } }, async (request, reply) => {
    const { stage, seq } = stageOf(request);
    const number = numberOf(request);
    const current = await deps.reports.getReport(orgSlug(request), number, stage, seq).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'conflict') throw new AppError('not_found', 'no such report');
      throw error;
    });
    const body = (request.body ?? {}) as Record<string, unknown>;
    const values: Record<string, string> = {};
    // A field the form did not send is left as it is; one sent empty is cleared.
    for (const f of formFields(stage, current.kind)) {
      const raw = Array.isArray(body[f.key]) ? (body[f.key] as unknown[])[0] : body[f.key];
      if (typeof raw === 'string') values[f.key] = raw.replace(/\r\n/g, '\n');
    }
    // The catalogue's own check, field by field, so each message sits beside its field.
    const checked = checkFields(stage, current.kind, values);
    if (checked.errors.length) return reportPage(request, reply, { errors: fieldErrors(checked.errors), values, report: current }, 400);
    try {
      await deps.reports.saveDraft(orgSlug(request), number, stage, values, current.seq);
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw error;
      const status = error instanceof AppError && error.code === 'conflict' ? 409 : 400;
      return reportPage(request, reply, { errors: serviceErrors(error), values, report: current }, status);
    }
    return redirect(request, reply, `${caseUrl(request)}/reports/${stageSlug(stage, current.seq)}?saved=1`);
  });

  org.post('/cases/:number/reports/:stage/file', { config: { permission: 'cases' } }, async (request, reply) => {
    const { stage, seq } = stageOf(request);
    const number = numberOf(request);
    const form = parseForm(FileForm, request.body);
    if (!form.ok) return reportPage(request, reply, { errors: form.errors }, 400);
    try {
      await deps.reports.fileReport(orgSlug(request), number, stage, {
        reference: form.value.reference,
        at: timeOf(form.value.filed_at),
        filedBy: actorOf(request.viewer!),
        seq,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') throw error;
      if (error instanceof AppError && error.code === 'conflict') return reportPage(request, reply, { errors: serviceErrors(error) }, 409);
      const field = error instanceof AppError && /time/.test(error.message) ? 'filed_at' : '_file';
      return reportPage(request, reply, { errors: serviceErrors(error, field) }, 400);
    }
    return redirect(request, reply, `${caseUrl(request)}/reports/${(request.params as { stage: string }).stage}`);
  });

  org.get('/cases/:number/reports/:stage/text', { config: { permission: 'read' } }, async (request, reply) => {
    const { stage, seq } = stageOf(request);
    const number = numberOf(request);
    try {
      const text = await deps.reports.reportText(orgSlug(request), number, stage, seq);
      return download(reply, `case-${number}-${stageSlug(stage, seq ?? 0)}.txt`, 'text/plain; charset=utf-8', `${text}\n`);
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') throw new AppError('not_found', 'no such report');
      throw error;
    }
  });
}
