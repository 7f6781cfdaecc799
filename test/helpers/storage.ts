import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

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

function usable(cmd: string, args: string[]): boolean {
  const result = spawnSync(cmd, args, { encoding: 'utf8' });
  return !result.error && result.status === 0;
}

/** Why a filesystem that fails under open files cannot be made here, or false when it can. */
export function failingDiskSkip(): string | false {
  if (STORAGE_SKIP) return STORAGE_SKIP;
  if (!existsSync('/sys/fs/ext4')) return 'no ext4 in this kernel';
  if (!usable('losetup', ['-f'])) return 'no free loop device (losetup -f)';
  if (!usable('mkfs.ext4', ['-V']) || !usable('e2fsck', ['-V'])) return 'needs mkfs.ext4 and e2fsck (e2fsprogs)';
  return false;
}

export interface FailingDisk {
  /** A directory on the filesystem, for the database. */
  dir: string;
  /** ext4 records an error and, mounted errors=remount-ro, turns read-only under the open files. */
  fail(): void;
  /** Unmounts it if nothing holds a file open on it; true once unmounted. */
  tryUnmount(): boolean;
  /** e2fsck, then mounted again: writable, with what was committed before the failure. */
  repairAndMount(): void;
  destroy(): void;
}

/**
 * A private ext4 filesystem on a loop device whose failure turns it read-only while files on it
 * are open for writing, as a failing disk does (a plain remount read-only would be refused).
 * Its mount point sits on a read-only tmpfs, so while it is unmounted nothing can be created in
 * its place. Needs root; callers skip with `failingDiskSkip()`.
 */
export function mountFailingDisk(megabytes: number): FailingDisk {
  const base = mkdtempSync(join(tmpdir(), 'cra-ext4-'));
  const image = join(base, 'disk.img');
  const guard = join(base, 'guard');
  mkdirSync(guard);
  run('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'tmpfs', guard]);
  const mountPoint = join(guard, 'mnt');
  mkdirSync(mountPoint);
  run('mount', ['-o', 'remount,ro', guard]);
  const fd = openSync(image, 'w');
  ftruncateSync(fd, megabytes * 1024 * 1024);
  closeSync(fd);
  const attached = spawnSync('losetup', ['-f', '--show', image], { encoding: 'utf8' });
  if (attached.status !== 0) throw new Error(`losetup failed: ${attached.stderr}`);
  const device = attached.stdout.trim();
  const mount = () => run('mount', ['-o', 'errors=remount-ro', device, mountPoint]);
  run('mkfs.ext4', ['-q', '-F', device]);
  mount();
  const dir = join(mountPoint, 'data');
  mkdirSync(dir);
  return {
    dir,
    fail() {
      writeFileSync(`/sys/fs/ext4/${basename(device)}/trigger_fs_error`, '1');
    },
    tryUnmount() {
      return spawnSync('umount', [mountPoint]).status === 0;
    },
    repairAndMount() {
      // 0: clean, 1: errors corrected.
      const fsck = spawnSync('e2fsck', ['-fy', device], { encoding: 'utf8' });
      if (fsck.status !== 0 && fsck.status !== 1) throw new Error(`e2fsck failed (${fsck.status}): ${fsck.stdout}${fsck.stderr}`);
      mount();
    },
    destroy() {
      spawnSync('umount', [mountPoint]);
      spawnSync('losetup', ['-d', device]);
      spawnSync('umount', [guard]);
      rmSync(base, { recursive: true, force: true });
    },
  };
}
