/**
 * CPU time of workerd processes, from /proc (Linux). CPU per request is steadier than throughput on a shared
 * 2-core machine, so the report shows both. Elsewhere this returns NaN and the column reads n/a.
 *
 * Two clocks: /proc/<pid>/stat counts whole processes in ticks of 10 ms (dead threads included), and
 * /proc/<pid>/task/<tid>/schedstat counts each living thread in nanoseconds. A loop of 2,000 requests moves the
 * tick clock by a few ticks only (10 ms / 2,000 = 5 us per request per tick, as much as a tenth of a figure), so
 * `cpuSample`/`cpuUsedSince` use the nanosecond one, and the tick clock when a thread ended between the two
 * samples (its last nanoseconds would be lost) or schedstat is missing.
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

/** Nanoseconds on CPU of every living thread of these processes, by "pid/tid"; undefined when unreadable. */
function threadNanoseconds(pids) {
  const threads = new Map();
  try {
    for (const pid of pids) {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        threads.set(`${pid}/${tid}`, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]));
      }
    }
  } catch {
    return undefined;
  }
  return threads;
}

/** A CPU reading of these processes to measure from (see cpuUsedSince). */
export function cpuSample(pids) {
  return { pids, seconds: cpuSeconds(pids), threads: threadNanoseconds(pids) };
}

/** CPU seconds the processes of `sample` used since it was taken: nanosecond-precise unless a thread ended. */
export function cpuUsedSince(sample) {
  const seconds = cpuSeconds(sample.pids) - sample.seconds;
  const now = threadNanoseconds(sample.pids);
  if (!sample.threads || !now) return seconds;
  let used = 0;
  for (const [thread, before] of sample.threads) {
    if (!now.has(thread)) return seconds; // Ended in between: only the tick clock kept its time.
    used += now.get(thread) - before;
  }
  for (const [thread, after] of now) if (!sample.threads.has(thread)) used += after;
  return used / 1e9;
}
