import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A small filesystem of its own for a test that fills the disk under a SQLite database: a
// private tmpfs mount (needs root; mount(8) is the only way to get a real ENOSPC). Callers skip
// with `STORAGE_SKIP` when it is not available. It can also be remounted read-only and back.

export const STORAGE_SKIP =
  process.getuid?.() !== 0 ? 'needs root to mount a private tmpfs (run the suite as root for the SQLite storage-fault tests)' : false;

export interface SmallDisk {
  dir: string;
  /** Writes a filler file until the filesystem reports ENOSPC. */
  fill(): void;
  /** Removes the filler: the space is back. */
  free(): void;
  /** Remounts the filesystem read-only (refused while a file on it is open for writing). */
  readOnly(): void;
  /** Remounts it read-write. */
  writable(): void;
  unmount(): void;
}

function run(cmd: string, args: string[]): void {
  const result = spawnSync(cmd, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${result.stderr}`);
}

export function mountSmallDisk(megabytes: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'cra-disk-'));
  run('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0755`, 'tmpfs', dir]);
  const filler = join(dir, 'filler');
  return {
    dir,
    fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
      // The last, partial page too.
      const small = openSync(filler, 'a');
      try {
        for (;;) writeSync(small, Buffer.alloc(512));
      } catch {
        // full
      } finally {
        closeSync(small);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    readOnly() {
      run('mount', ['-o', 'remount,ro', dir]);
    },
    writable() {
      run('mount', ['-o', 'remount,rw', dir]);
    },
    unmount() {
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
