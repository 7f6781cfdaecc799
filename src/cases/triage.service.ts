import type { Database } from '../db/index.js';
import { AppError } from '../errors.js';
import { signalsRepo, type SignalWithProduct } from '../incidents/signals.repo.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { productsRepo } from '../products/products.repo.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { casesRepo } from './cases.repo.js';
import { SIGNAL_DISMISSED, SIGNAL_INCOMING, SIGNAL_MERGED } from '../incidents/signal-status.js';
import { assertUntriaged } from './case-rules.js';
import { assertStorableText, isStorableText } from '../shared/storable-text.js';

// Triage of inbound signals (art14.md): besides opening a case (cases.service), a signal can be
// dismissed with a reason, merged into an existing case as a duplicate (no second clock), or
// attributed to a product while it is still INCOMING. Each outcome is one registry entry, and a
// signal that has left INCOMING is never triaged again.

export function createTriageService(database: Database, orgs: OrgService, options: { clock?: Clock } = {}) {
  const clock = options.clock ?? systemClock;

  async function requireIncoming(orgId: string, incidentNumber: number): Promise<SignalWithProduct> {
    const signal = await signalsRepo.findByNumber(database.db, orgId, incidentNumber);
    if (!signal) throw new AppError('not_found', `no signal with incident number ${incidentNumber}`);
    assertUntriaged(signal);
    return signal;
  }

  const raced = (n: number) => new AppError('conflict', `signal ${n} was triaged meanwhile; list it and retry`);

  return {
    async dismissSignal(orgSlug: string, incidentNumber: number, reason: string, actor = 'cli'): Promise<SignalWithProduct> {
      assertStorableText({ reason });
      const org = await orgs.requireOrg(orgSlug);
      const why = reason.trim();
      if (!why) throw new AppError('validation_failed', 'dismissing a signal needs a reason (--reason)');
      const signal = await requireIncoming(org.id, incidentNumber);
      const at = iso(clock());
      await database.transaction(async (trx) => {
        if (!(await signalsRepo.setStatusFrom(trx, signal.id, SIGNAL_INCOMING, SIGNAL_DISMISSED, { triage_reason: why })))
          throw raced(incidentNumber);
        const details = { incident_number: incidentNumber, reason: why };
        await appendRegistryEntry(trx, org.id, { actor, action: 'signal.dismissed', subject: `signal ${incidentNumber}`, details }, at);
      });
      return { ...signal, status: SIGNAL_DISMISSED, triage_reason: why };
    },

    /** A duplicate report of case `into`: linked to it, no case and no clock of its own. */
    async mergeSignal(orgSlug: string, incidentNumber: number, into: number, actor = 'cli'): Promise<SignalWithProduct> {
      const org = await orgs.requireOrg(orgSlug);
      const signal = await requireIncoming(org.id, incidentNumber);
      const target = await casesRepo.findByNumber(database.db, org.id, into);
      if (!target) throw new AppError('not_found', `no case with incident number ${into}`);
      const at = iso(clock());
      await database.transaction(async (trx) => {
        if (!(await signalsRepo.setStatusFrom(trx, signal.id, SIGNAL_INCOMING, SIGNAL_MERGED, { merged_into: into })))
          throw raced(incidentNumber);
        const details = { incident_number: incidentNumber, merged_into: into, cve: signal.cve };
        await appendRegistryEntry(trx, org.id, { actor, action: 'signal.merged', subject: `signal ${incidentNumber}`, details }, at);
      });
      return { ...signal, status: SIGNAL_MERGED, merged_into: into };
    },

    /** Names the product of a signal that matched none (or the wrong one), before it is triaged. */
    async attributeSignal(orgSlug: string, incidentNumber: number, sku: string, actor = 'cli'): Promise<SignalWithProduct> {
      const org = await orgs.requireOrg(orgSlug);
      const signal = await requireIncoming(org.id, incidentNumber);
      // A SKU no database could hold names no product (PostgreSQL would refuse the query).
      const product = isStorableText(sku) ? await productsRepo.findBySku(database.db, org.id, sku) : undefined;
      if (!product) throw new AppError('product_not_found', `no product with SKU "${sku}"`);
      const at = iso(clock());
      await database.transaction(async (trx) => {
        if (!(await signalsRepo.setProduct(trx, signal.id, product.id))) throw raced(incidentNumber);
        const details = { incident_number: incidentNumber, product_sku: product.sku, previous_product_sku: signal.product_sku };
        await appendRegistryEntry(trx, org.id, { actor, action: 'signal.attributed', subject: `signal ${incidentNumber}`, details }, at);
      });
      return { ...signal, product_id: product.id, product_sku: product.sku };
    },
  };
}

export type TriageService = ReturnType<typeof createTriageService>;
