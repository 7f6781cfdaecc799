import { sql } from 'kysely';
import type { Database, Executor, Trx } from '../../db/index.js';
import { highestCvss } from '../cvss.js';
import { euvdRepo } from './euvd.repo.js';
import { nvdRepo } from './nvd.repo.js';

// `vulnerabilities`: one row per alias group with what every feed says of it, kept current as
// the feeds change, and copied into the findings' sort columns (exploited, CVSS, EPSS).

const CVE = /^CVE-\d{4}-\d{4,}$/;
const EUVD = /^EUVD-\d{4}-\d+$/;
const CHUNK = 500;

/** The alias groups whose records are, or name as an alias, any of `ids` (CVE, GHSA, EUVD, GO- …). */
export async function groupsNaming(db: Executor, ids: readonly string[]): Promise<string[]> {
  const keys = new Set<string>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const [byAlias, byId] = await Promise.all([
      db
        .selectFrom('vuln_aliases as a')
        .innerJoin('vuln_records as r', 'r.id', 'a.record_id')
        .select('r.vuln_key')
        .distinct()
        .where('a.alias', 'in', chunk)
        .execute(),
      db.selectFrom('vuln_records').select('vuln_key').distinct().where('id', 'in', chunk).execute(),
    ]);
    for (const row of [...byAlias, ...byId]) keys.add(row.vuln_key);
    // An NVD record's group is its CVE id.
    for (const cve of await nvdRepo.liveAmong(db, chunk)) keys.add(cve);
  }
  return [...keys];
}

/**
 * Rebuilds the rows of `keys` from their records (withdrawn ones left out: a group of withdrawn
 * records has no row), the KEV catalogues and EPSS, then the findings' copies of them.
 */
export async function refreshGroups(database: Database, trx: Trx, keys: readonly string[], at: string): Promise<void> {
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK);
    const records = await trx
      .selectFrom('vuln_records')
      .select(['id', 'vuln_key', 'summary', 'aliases', 'severity'])
      .where('vuln_key', 'in', chunk)
      .where('withdrawn', 'is', null)
      .orderBy('id')
      .execute();
    const groups = new Map<string, typeof records>();
    for (const r of records) groups.set(r.vuln_key, [...(groups.get(r.vuln_key) ?? []), r]);
    // An NVD record is keyed by its CVE id: it makes a group of its own, or fills what the OSV
    // records of its CVE leave empty (firmware.md, Feeds).
    const nvd = new Map(
      (
        await nvdRepo.liveRecords(
          trx,
          chunk.filter((key) => CVE.test(key)),
        )
      ).map((r) => [r.cve, r]),
    );
    for (const key of nvd.keys()) if (!groups.has(key)) groups.set(key, []);
    const aliasesOf = new Map<string, string[]>();
    const cves = new Set<string>();
    for (const [key, rs] of groups) {
      const ids = rs.flatMap((r) => [r.id, ...(JSON.parse(r.aliases) as string[])]);
      if (nvd.has(key)) ids.push(key);
      const all = [...new Set(ids)].sort();
      aliasesOf.set(key, all);
      for (const id of all) if (CVE.test(id)) cves.add(id);
    }
    const [kev, epss, euvdIds] = cves.size
      ? await Promise.all([
          trx
            .selectFrom('kev_entries')
            .selectAll()
            .where('cve', 'in', [...cves])
            .execute(),
          trx
            .selectFrom('epss_scores')
            .selectAll()
            .where('cve', 'in', [...cves])
            .execute(),
          euvdRepo.idsOf(trx, [...cves]),
        ])
      : [[], [], new Map<string, string>()];
    // The sort columns each group had: only findings of groups whose columns change are copied to.
    const before = new Map(
      (
        await trx
          .selectFrom('vulnerabilities')
          .select(['vuln_key', 'exploited', 'cvss_score', 'epss_score'])
          .where('vuln_key', 'in', chunk)
          .execute()
      ).map((v) => [v.vuln_key, v]),
    );
    const moved: string[] = [];
    await trx.deleteFrom('vulnerabilities').where('vuln_key', 'in', chunk).execute();
    const values: unknown[] = [];
    for (const [key, rs] of groups) {
      const aliases = aliasesOf.get(key)!;
      const groupCves = aliases.filter((id) => CVE.test(id));
      const cisa = kev.find((k) => k.source === 'cisa' && groupCves.includes(k.cve));
      const eu = kev.find((k) => k.source === 'eu' && groupCves.includes(k.cve));
      const cve = CVE.test(key) ? key : null;
      const score = epss.find((e) => e.cve === cve);
      const fromNvd = nvd.get(key);
      const osvCvss = highestCvss(rs.flatMap((r) => JSON.parse(r.severity) as Array<{ type: string; score: string }>));
      const cvss =
        osvCvss ?? (fromNvd?.cvss_score != null && fromNvd.cvss_vector ? { score: fromNvd.cvss_score, vector: fromNvd.cvss_vector } : null);
      // The summary of the record named like the group (a CVE record), else of the first that has
      // one, else the NVD's description.
      const summary = (rs.find((r) => r.id === key && r.summary) ?? rs.find((r) => r.summary))?.summary ?? fromNvd?.summary ?? null;
      const listed = kev.find((k) => k.source === 'euvd' && groupCves.includes(k.cve));
      // An NVD record's cisaExploitAdd stands for CISA's catalogue when that is not imported (firmware.md, Readings).
      const cisaKev = cisa
        ? { date_added: cisa.date_added, ransomware: cisa.ransomware, cve: cisa.cve }
        : fromNvd?.cisa_exploit_add
          ? { date_added: fromNvd.cisa_exploit_add, ransomware: null, cve: key, source: 'nvd' }
          : null;
      const euvd =
        groupCves.map((id) => euvdIds.get(id)).find(Boolean) ?? listed?.euvd ?? eu?.euvd ?? aliases.find((id) => EUVD.test(id)) ?? null;
      const was = before.get(key);
      const exploited = cisaKev || eu || listed ? 1 : 0;
      if (!was || was.exploited !== exploited || was.cvss_score !== (cvss?.score ?? null) || was.epss_score !== (score?.score ?? null)) {
        moved.push(key);
      }
      values.push(
        key,
        cve,
        euvd,
        summary,
        JSON.stringify(aliases),
        cvss?.score ?? null,
        cvss?.vector ?? null,
        score?.score ?? null,
        score?.percentile ?? null,
        cisaKev ? JSON.stringify(cisaKev) : null,
        eu ? JSON.stringify({ date_reported: eu.date_added, euvd: eu.euvd, cve: eu.cve }) : null,
        listed ? JSON.stringify(euvdExploited(listed)) : null,
        exploited,
        at,
      );
    }
    await database.bulkInsert(
      trx,
      'vulnerabilities',
      [
        'vuln_key',
        'cve',
        'euvd',
        'summary',
        'aliases',
        'cvss_score',
        'cvss_vector',
        'epss_score',
        'epss_percentile',
        'cisa_kev',
        'eu_kev',
        'euvd_exploited',
        'exploited',
        'updated_at',
      ],
      values,
    );
    // A group gone (all its records withdrawn) takes its findings' copies back to none, as ever.
    for (const key of chunk) if (!groups.has(key) && before.has(key)) moved.push(key);
    // A first import (no finding yet anywhere) has no copies to update.
    if (moved.length && (await trx.selectFrom('findings').select('vuln_key').limit(1).executeTakeFirst()))
      await copyIntoFindings(trx, moved);
  }
}

/** The EUVD exploited list's entry as a group shows it: date added, the list's sources as given, the EUVD id. */
function euvdExploited(entry: { cve: string; euvd: string | null; date_added: string | null; data: string }) {
  const sources = (JSON.parse(entry.data) as { sources?: unknown }).sources;
  return { date_added: entry.date_added, sources: Array.isArray(sources) ? sources : [], euvd: entry.euvd, cve: entry.cve };
}

/**
 * The findings of `keys` take their group's exploited flag and scores (their sort columns). Only
 * those whose copy differs are written: an import that changes no score rewrites no finding
 * (on PostgreSQL every row written is a new row version, 100,000 of them for 10,000 groups).
 */
async function copyIntoFindings(db: Executor, keys: readonly string[]): Promise<void> {
  const of = (column: 'exploited' | 'cvss_score' | 'epss_score') =>
    sql<number | null>`(select v.${sql.ref(column)} from vulnerabilities v where v.vuln_key = findings.vuln_key)`;
  const exploited = sql<number>`coalesce(${of('exploited')}, 0)`;
  await db
    .updateTable('findings')
    .set({ exploited, cvss_score: of('cvss_score'), epss_score: of('epss_score') })
    .where('vuln_key', 'in', keys)
    .where((eb) =>
      eb.or([
        sql<boolean>`findings.exploited is distinct from ${exploited}`,
        sql<boolean>`findings.cvss_score is distinct from ${of('cvss_score')}`,
        sql<boolean>`findings.epss_score is distinct from ${of('epss_score')}`,
      ]),
    )
    .execute();
}

/** After an EPSS import: every group with a CVE takes its score, and the findings their copy. */
export async function refreshEpss(db: Executor): Promise<void> {
  const of = (column: 'score' | 'percentile') =>
    sql<number | null>`(select e.${sql.ref(column)} from epss_scores e where e.cve = vulnerabilities.cve)`;
  await db
    .updateTable('vulnerabilities')
    .set({ epss_score: of('score'), epss_percentile: of('percentile') })
    .where('cve', 'is not', null)
    .execute();
  await db
    .updateTable('findings')
    .set({ epss_score: sql<number | null>`(select v.epss_score from vulnerabilities v where v.vuln_key = findings.vuln_key)` })
    .execute();
}

/** The alias group's row: what every feed says of it (none when all its records are withdrawn). */
export function groupRow(db: Executor, vulnKey: string) {
  return db.selectFrom('vulnerabilities').selectAll().where('vuln_key', '=', vulnKey).executeTakeFirst();
}

/** The group's records, withdrawn ones included, by id. */
export function recordsOf(db: Executor, vulnKey: string) {
  return db.selectFrom('vuln_records').selectAll().where('vuln_key', '=', vulnKey).orderBy('id').execute();
}

/** Each group's records' affected entries as stored (JSON), for the fixed versions of its findings. */
export async function affectedOf(db: Executor, vulnKeys: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < vulnKeys.length; i += CHUNK) {
    const rows = await db
      .selectFrom('vuln_records')
      .select(['vuln_key', 'affected'])
      .where('vuln_key', 'in', vulnKeys.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) out.set(r.vuln_key, [...(out.get(r.vuln_key) ?? []), r.affected]);
  }
  return out;
}
