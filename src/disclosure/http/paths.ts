import { fileURLToPath } from 'node:url';

// The public pages' templates stay in src/disclosure/views (tsc copies no files); this module
// sits at the same depth in src/ and dist/, so the repository root is three levels up.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const PUBLIC_VIEWS_DIR = `${ROOT}src/disclosure/views`;
