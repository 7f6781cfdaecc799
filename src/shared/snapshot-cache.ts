/**
 * Read-through cache of per-organisation data, keyed by a change stamp that the caller reads
 * fresh on every request. The stamp used here is the organisation's registry sequence number
 * (organisations.registry_seq, read with the key as Principal.orgRegistrySeq): every change
 * to products, cases, signals or SBOMs appends a registry entry in the same transaction, so a
 * request that saw stamp N is served data at least as new as N, on any instance.
 */
export class SnapshotCache<T> {
  private readonly entries = new Map<string, { stamp: number; value: Promise<T> }>();

  constructor(private readonly maxOrganisations = 256) {}

  get(orgId: string, stamp: number, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(orgId);
    if (hit && hit.stamp >= stamp) return hit.value;
    const value = load();
    this.entries.delete(orgId);
    if (this.entries.size >= this.maxOrganisations) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(orgId, { stamp, value });
    // A failed load is not remembered.
    value.catch(() => {
      if (this.entries.get(orgId)?.value === value) this.entries.delete(orgId);
    });
    return value;
  }
}
