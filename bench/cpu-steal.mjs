import { readdirSync, readFileSync } from 'node:fs';

// On a shared VM the hypervisor hands this machine's CPUs to other guests now and then ("steal"
// time in /proc/stat). A run measured under heavy steal says more about the neighbours than about
// the service, so every measurement records how much was stolen while it ran.
//
// And what a piece of work costs the processes that do it (cpuMeter): CPU time and page faults,
// which say what the work takes whatever else shares the cores.

function cpuTimes() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { total, steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

/** Starts a stopwatch of steal time; `stop()` returns the percentage of CPU time stolen since (null off Linux). */
export function stealMeter() {
  const start = cpuTimes();
  return {
    stop() {
      const end = cpuTimes();
      if (!start || !end || end.total === start.total) return null;
      return Math.round(((end.steal - start.steal) / (end.total - start.total)) * 100);
    },
  };
}

/**
 * What process `pid` has used so far, all its threads: nanoseconds on a CPU
 * (/proc/<pid>/task/<tid>/schedstat) and minor page faults (/proc/<pid>/stat); null off Linux.
 */
function processUse(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ', 1)[0]);
    }
    // The fields after the command's closing parenthesis: state is the first, minflt the eighth.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const faults = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
    return { ns, faults };
  } catch {
    return null;
  }
}

/** The processes named `name` (/proc/<pid>/comm), such as PostgreSQL's backends. */
function processesNamed(name) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // Gone since the listing.
    }
  }
  return pids;
}

/**
 * Starts a meter of the CPU time the processes of `pids()` spend, and of the page faults they
 * take (asked at start and at stop: processes that start or end in between count for what they
 * used between the two times they were seen); `stop()` returns `{ms, faults}`, or null off
 * Linux. What a piece of work costs, where its time on the clock depends on what else runs.
 */
export function cpuMeter(pids) {
  const sample = () => {
    const out = new Map();
    for (const pid of pids()) {
      const use = processUse(pid);
      if (use !== null) out.set(pid, use);
    }
    return out;
  };
  const start = sample();
  return {
    stop() {
      const end = sample();
      if (start.size === 0) return null;
      let ns = 0;
      let faults = 0;
      for (const [pid, use] of end) {
        const before = start.get(pid);
        if (!before) continue;
        ns += use.ns - before.ns;
        faults += use.faults - before.faults;
      }
      return { ms: Math.round(ns / 1e6), faults };
    },
  };
}

/** cpuMeter of one process. */
export const processCpuMeter = (pid) => cpuMeter(() => [pid]);

/** cpuMeter of PostgreSQL's processes on this machine (their backends do a store's inserts). */
export const postgresCpuMeter = () => cpuMeter(() => processesNamed('postgres'));
