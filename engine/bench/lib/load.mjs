/**
 * One load run with autocannon (in this process, 127.0.0.1 only). Latency comes from autocannon's per-response
 * hrtime (fractional ms), not from its histogram, which only resolves whole milliseconds.
 */
import autocannon from "autocannon";
import { cpuSample, cpuUsedSince } from "./cpu.mjs";

export async function load(url, request, { connections, seconds, pids = [], limitedIsExpected = false }) {
  const latencies = [];
  const cpuBefore = cpuSample(pids);
  const instance = autocannon({
    url,
    ...request,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  });
  instance.on("response", (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await instance;
  const cpuUsed = cpuUsedSince(cpuBefore);
  const limited = result.statusCodeStats?.["429"]?.count ?? 0;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return {
    rps: result.requests.total / result.duration,
    p50: at(0.5),
    p99: at(0.99),
    total: result.requests.total,
    // workerd CPU (all its threads, Miniflare's entry Worker included) per answered request, in microseconds.
    cpuUs: Number.isFinite(cpuUsed) ? (cpuUsed * 1e6) / result.requests.total : NaN,
    // 429 answers (the rate limiter said no): their own figure, never counted as successes.
    limited,
    // Anything but a 2xx answer makes the run invalid (429 too, unless the run is about rate limiting); the report
    // says so rather than hiding it.
    failures: result.non2xx - (limitedIsExpected ? limited : 0) + result.errors + result.timeouts,
  };
}
