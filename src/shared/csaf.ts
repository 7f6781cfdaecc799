// The parts every CSAF 2.0 document of this platform shares (the 14(8) advisory of a case, the
// VEX of a release): who publishes it, its tracking, and the vendor → product → version tree.

export const CSAF_GENERATOR = { name: 'cra-api cra-admin', version: '1.0.0' };

/** The publisher: the vendor, its trust domain (the security contact's mail domain, else a URN under its slug). */
export function csafPublisher(orgSlug: string, name: string, contactEmail: string | null) {
  const domain = contactEmail?.split('@')[1];
  return {
    category: 'vendor',
    name,
    namespace: domain ? `https://${domain.toLowerCase()}` : `urn:cra-platform:org:${orgSlug}`,
    ...(contactEmail ? { contact_details: `Security contact: ${contactEmail}` } : {}),
  };
}

/** Tracking of a first, final version: `initial` is when it was first produced, `now` this one. */
export function csafTracking(id: string, initial: string, now: string) {
  return {
    current_release_date: now,
    generator: { date: now, engine: CSAF_GENERATOR },
    id,
    initial_release_date: initial,
    revision_history: [{ date: initial, number: '1', summary: 'Initial version.' }],
    status: 'final',
    version: '1',
  };
}

/** The vendor's product with one branch per version; each version's product as `product(version)` gives it. */
export function csafProductTree(
  vendor: string,
  productName: string,
  versions: ReadonlyArray<{ version: string; product: Record<string, unknown> }>,
) {
  return {
    branches: [
      {
        category: 'vendor',
        name: vendor,
        branches: [
          {
            category: 'product_name',
            name: productName,
            branches: versions.map((v) => ({ category: 'product_version', name: v.version, product: v.product })),
          },
        ],
      },
    ],
  };
}
