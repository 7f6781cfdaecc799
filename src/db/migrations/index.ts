import type { PortableMigration } from './types.js';
import { initial } from './001-initial.js';
import { consoleUsers } from './003-console.js';
import { gtinDeclared } from './008-gtin-declared.js';

/** Every migration, in order. Add new ones at the end; never edit one that has shipped. */
export const migrations: readonly PortableMigration[] = [initial, gtinDeclared, consoleUsers];
