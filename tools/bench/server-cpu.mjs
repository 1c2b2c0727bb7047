// CPU time a server process spent, read from /proc (Linux): the whole process (every thread:
// libuv's pool, GC helpers, SQLite's fsyncs from the pool) and its main thread (the event loop).
// A steady yardstick on a shared machine, where throughput swings with the disk and the load.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);

/** utime + stime of a /proc stat line, in ms (fields 14 and 15; the name in parentheses may hold spaces). */
function ticksOf(statPath) {
  const line = readFileSync(statPath, 'utf8');
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** { totalMs, mainMs } so far for a process id. */
export function cpuOf(pid) {
  return { totalMs: ticksOf(`/proc/${pid}/stat`), mainMs: ticksOf(`/proc/${pid}/task/${pid}/stat`) };
}

/** Runs `work`, returning its result and the CPU the process spent meanwhile, per `count` operations. */
export async function withServerCpu(pid, count, work) {
  const before = cpuOf(pid);
  const result = await work();
  const after = cpuOf(pid);
  return { result, cpu: { totalMsPer: (after.totalMs - before.totalMs) / count, mainMsPer: (after.mainMs - before.mainMs) / count } };
}

export const formatCpu = (cpu) => `cpu/op ${cpu.totalMsPer.toFixed(3)} ms (main ${cpu.mainMsPer.toFixed(3)})`;
