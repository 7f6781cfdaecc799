import { readFileSync } from 'node:fs';

// On a shared VM the hypervisor hands this machine's CPUs to other guests now and then ("steal"
// time in /proc/stat). A run measured under heavy steal says more about the neighbours than about
// the service, so every measurement records how much was stolen while it ran.

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
