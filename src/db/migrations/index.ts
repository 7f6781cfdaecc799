import type { PortableMigration } from './types.js';
import { initial } from './001-initial.js';

/** Every migration, in order. Add new ones at the end; never edit one that has shipped. */
export const migrations: readonly PortableMigration[] = [initial];
