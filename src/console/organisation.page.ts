import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SBOM_POLICY_WORDS } from '../sbom/conformance/policy.js';
import { MEMBER_STATES } from '../shared/member-states.js';
import { AppError } from '../errors.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { type FieldErrors, parseForm, serviceErrors } from './forms.js';
import { orgSlug, render } from './render.js';
import { redirect } from './session.js';

// The organisation's details that every Article 14 report names (art14.md): legal name, postal
// address, security contact and Member State of main establishment. Everyone reads them; owners
// and admins change them ("organisation settings", console.md) through the same service as
// `cra-admin org set`.

const DetailsForm = Type.Object({
  legal_name: Type.String({ maxLength: 300, message: 'At most 300 characters.' }),
  postal_address: Type.String({ maxLength: 1000, message: 'At most 1000 characters.' }),
  contact_email: Type.String({
    pattern: '^([^\\s@]+@[^\\s@]+\\.[^\\s@]+)?$',
    maxLength: 320,
    message: 'Give an e-mail address, or leave it empty.',
  }),
  member_state: Type.Union([Type.Literal(''), ...MEMBER_STATES.map((m) => Type.Literal(m))], {
    message: 'Choose one of the 27 Member States.',
  }),
});

/** The SBOM policies in words (sbom-conformance.md, Where it shows). */
const POLICY_LABELS: Record<(typeof SBOM_POLICY_WORDS)[number], string> = {
  report: 'Accept every valid SBOM and report its conformance',
  'require:bsi-tr-03183-2-v2.1': 'Refuse an SBOM that does not conform to BSI TR-03183-2 v2.1',
  'require:ntia-minimum': 'Refuse an SBOM that lacks an NTIA minimum element',
};

const PolicyForm = Type.Object({
  sbom_policy: Type.String({ minLength: 1, maxLength: 100, message: 'Choose an SBOM policy.' }),
});

export function registerOrganisationPage(org: FastifyInstance, deps: ConsoleDeps): void {
  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { errors?: FieldErrors; values?: Record<string, unknown>; notice?: string } = {},
    status = 200,
  ) {
    const [details, sbomPolicy] = await Promise.all([
      deps.orgs.describeOrg(orgSlug(request)),
      deps.sbomConformance.policy(orgSlug(request)),
    ]);
    const values = extra.values ?? {
      legal_name: details.legal_name ?? '',
      postal_address: details.postal_address ?? '',
      contact_email: details.contact_email ?? '',
      member_state: details.member_state ?? '',
    };
    return render(
      request,
      reply,
      'organisation',
      {
        title: 'Organisation',
        section: 'organisation',
        details,
        memberStates: MEMBER_STATES,
        sbomPolicy: sbomPolicy.policy,
        policyChoices: SBOM_POLICY_WORDS.map((value) => ({ value, label: POLICY_LABELS[value] })),
        ...extra,
        values,
      },
      status,
    );
  }

  org.get('/organisation', { config: { permission: 'read' } }, (request, reply) =>
    page(request, reply, { notice: (request.query as { saved?: string }).saved === '1' ? 'Saved.' : undefined }),
  );

  org.post('/organisation', { config: { permission: 'settings' } }, async (request, reply) => {
    const form = parseForm(DetailsForm, request.body);
    if (!form.ok) return page(request, reply, { errors: form.errors, values: form.values }, 400);
    const v = form.value;
    try {
      await deps.orgs.setDetails(
        orgSlug(request),
        { legalName: v.legal_name, postalAddress: v.postal_address, contactEmail: v.contact_email, memberState: v.member_state },
        actorOf(request.viewer!),
      );
    } catch (error) {
      return page(request, reply, { errors: serviceErrors(error), values: v }, 400);
    }
    return redirect(request, reply, `/console/o/${encodeURIComponent(orgSlug(request))}/organisation?saved=1`);
  });

  // The SBOM policy (sbom-conformance.md): the same service as `cra-admin org set --sbom-policy`.
  org.post('/organisation/sbom-policy', { config: { permission: 'settings' } }, async (request, reply) => {
    const form = parseForm(PolicyForm, request.body);
    try {
      if (!form.ok) throw new AppError('validation_failed', form.errors.sbom_policy ?? 'Choose an SBOM policy.');
      await deps.sbomConformance.setPolicy(orgSlug(request), form.value.sbom_policy, actorOf(request.viewer!));
    } catch (error) {
      return page(request, reply, { errors: serviceErrors(error, 'sbom_policy') }, 400);
    }
    return redirect(request, reply, `/console/o/${encodeURIComponent(orgSlug(request))}/organisation?saved=1`);
  });
}
