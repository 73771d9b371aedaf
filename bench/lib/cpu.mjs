/**
 * CPU time of workerd processes, from /proc (Linux). CPU per request is steadier than throughput on a shared
 * 2-core machine, so the report shows both. Elsewhere this returns undefined and the column reads n/a.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ; 100 on every Linux distribution we run on.

export function workerdPids() {
  try {
    return readdirSync("/proc").filter((entry) => /^\d+$/.test(entry) && comm(entry) === "workerd");
  } catch {
    return [];
  }
}

function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** User + system CPU seconds used so far by these processes (all threads), or undefined when unknown. */
export function cpuSeconds(pids) {
  if (pids.length === 0) return undefined;
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
  }
  return ticks / TICKS_PER_SECOND;
}
