/**
 * CPU time of workerd processes, from /proc (Linux). CPU per request is steadier than throughput on a shared
 * 2-core machine, so the report shows both. Elsewhere this returns undefined and the column reads n/a.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux distribution we run on.

/** The workerd processes this process started (Miniflare spawns them as direct children), never anyone else's. */
export function workerdPids() {
  try {
    return readdirSync("/proc").filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      const stat = fields(entry);
      return stat !== undefined && stat.name === "workerd" && Number(stat.rest[1]) === process.pid;
    });
  } catch {
    return [];
  }
}

/** /proc/<pid>/stat split after the command name, which may itself hold spaces; undefined if the process is gone. */
function fields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), rest: stat.slice(stat.lastIndexOf(")") + 2).split(" ") };
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds used so far by these processes (all threads); NaN when unknown or one is gone. */
export function cpuSeconds(pids) {
  if (pids.length === 0) return NaN;
  let ticks = 0;
  for (const pid of pids) {
    const stat = fields(pid);
    if (!stat) return NaN;
    ticks += Number(stat.rest[11]) + Number(stat.rest[12]); // utime, stime
  }
  return ticks / TICKS_PER_SECOND;
}
