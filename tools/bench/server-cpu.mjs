// CPU time a server process (and its children) spent, read from /proc (Linux): the whole process (every thread:
// libuv's pool, GC helpers, SQLite's fsyncs from the pool) and its main thread (the event loop).
// A steady yardstick on a shared machine, where throughput swings with the disk and the load.
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim() || 100);

/** utime + stime of a /proc stat line, in ms (fields 14 and 15; the name in parentheses may hold spaces). */
function ticksOf(statPath) {
  const line = readFileSync(statPath, 'utf8');
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** The process and its descendants (the distributed topology's launcher starts one process per service). */
function tree(pid) {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return []; // the thread ended meanwhile
    }
  });
  return [pid, ...children.flatMap(tree)];
}

/** { totalMs, mainMs } so far for a process id and its descendants (main: each one's main thread). */
export function cpuOf(pid) {
  let totalMs = 0;
  let mainMs = 0;
  for (const p of tree(pid)) {
    totalMs += ticksOf(`/proc/${p}/stat`);
    mainMs += ticksOf(`/proc/${p}/task/${p}/stat`);
  }
  return { totalMs, mainMs };
}

/** Runs `work`, returning its result and the CPU the process spent meanwhile, per `count` operations. */
export async function withServerCpu(pid, count, work) {
  const before = cpuOf(pid);
  const result = await work();
  const after = cpuOf(pid);
  return { result, cpu: { totalMsPer: (after.totalMs - before.totalMs) / count, mainMsPer: (after.mainMs - before.mainMs) / count } };
}

export const formatCpu = (cpu) => `cpu/op ${cpu.totalMsPer.toFixed(3)} ms (main ${cpu.mainMsPer.toFixed(3)})`;
