import type { PortableMigration } from './types.js';
import { initial } from './001-initial.js';
import { sharedComponents } from './002-shared-components.js';
import { consoleUsers } from './003-console.js';
import { article14 } from './004-article-14.js';
import { webhooks } from './005-webhooks.js';
import { writeProbe } from './006-write-probe.js';
import { gtinDeclared } from './008-gtin-declared.js';
import { setupLinks } from './009-setup-links.js';
import { vulnerabilities } from './010-vulnerabilities.js';
import { signInAttempts } from './011-sign-in-attempts.js';
import { disclosure } from './012-disclosure.js';
import { changeNotices } from './013-change-notices.js';
import { compactComponents } from './014-compact-components.js';
import { abbreviatedComponents } from './015-abbreviated-components.js';
import { namePrefixedKeys } from './016-name-prefixed-keys.js';
import { sealedCreditLines } from './017-sealed-credit-lines.js';
import { firmware } from './018-firmware.js';
import { sbomConformance } from './020-sbom-conformance.js';
import { sbomDocuments } from './019-sbom-documents.js';

/**
 * Every migration, in name order (the order they run in; a later-numbered one may land first,
 * see migrate.ts). Never edit one that has shipped.
 */
export const migrations: readonly PortableMigration[] = [
  initial,
  sharedComponents,
  consoleUsers,
  article14,
  webhooks,
  writeProbe,
  gtinDeclared,
  setupLinks,
  vulnerabilities,
  signInAttempts,
  disclosure,
  changeNotices,
  compactComponents,
  abbreviatedComponents,
  namePrefixedKeys,
  sealedCreditLines,
  firmware,
  sbomDocuments,
  sbomConformance,
];
