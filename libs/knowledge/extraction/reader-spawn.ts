import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';

import { readerArgs } from './reader-protocol';

/** A user and group id for reader processes (KNOWLEDGE_EXTRACT_UID, _GID). */
export interface ReaderUser {
  readonly uid: number;
  readonly gid: number;
}

export interface ReaderSpawnOptions {
  /** V8's old generation, in MB. */
  readonly maxMemoryMb: number;
  /** Its watchdog's hard limit on one file. */
  readonly hardLimitMs: number;
  /** Run as this user and group (setuid/setgid, supplementary groups dropped); null: as the service. */
  readonly runAs: ReaderUser | null;
}

/** How every reader of one script is started: worked out once, not at each start. */
export interface ReaderCommand {
  /** The script's real path: the permission model checks paths as the process resolves them. */
  readonly script: string;
  readonly args: readonly string[];
  readonly runAs: ReaderUser | null;
}

/**
 * The command for readers running `script` (the bundled extraction.worker.ts): under Node's
 * permission model, compiling no code from strings, within its memory, with its watchdog's limit.
 */
export function readerCommand(script: string, { maxMemoryMb, hardLimitMs, runAs }: ReaderSpawnOptions): ReaderCommand {
  const real = realpathSync(script);
  const flags = [
    ...permissionArgs(real),
    // No eval or new Function: a parser tricked into compiling text from a file (as PDF.js
    // was, CVE-2024-4367) throws instead of running it. PDF.js then takes its slower paths.
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${maxMemoryMb}`,
    '--max-semi-space-size=16',
  ];
  return { script: real, args: [...flags, real, ...readerArgs(hardLimitMs)], runAs };
}

/**
 * Starts a reader process: with an empty environment, in the script's folder, as its user, and
 * with its channel (JsonLines) at READER_FD. spawn, not fork: fork insists on Node's IPC channel,
 * which a reader must not have (reader-channel.ts).
 */
export function spawnReader({ script, args, runAs }: ReaderCommand): ChildProcess {
  return spawn(process.execPath, args, {
    // Relative paths resolve inside the script's folder, which is all it may read anyway.
    cwd: dirname(script),
    env: {},
    // fd 3: the channel, at READER_FD in the reader.
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    ...(runAs === null ? {} : { uid: runAs.uid, gid: runAs.gid }),
  });
}

/**
 * A loaded reader's threads to nice +10 (on Linux a thread's id is a pid for setpriority), from
 * the service, which may list them: the service's request thread gets the CPU first, the
 * reader's V8 compiler and GC helpers and its watchdog included; threads it starts later inherit
 * it. Once loaded, not from the start: at low priority on a busy machine, starting a
 * replacement reader took seconds, all of it counted against the file that waited for it.
 */
export function lowerPriority(child: ChildProcess): void {
  const { pid } = child;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    for (const thread of readdirSync(`/proc/${pid}/task`)) setPriority(Number(thread), 10);
  } catch {
    // not Linux, gone already, or not permitted here (some containers): it runs at the service's priority
  }
}

/**
 * SIGKILL to a reader that is running. Never to one that could not be started: Node keeps the
 * handle of a spawn that failed with EMFILE, and its kill then signals pid 0, the service's
 * whole process group (seen here: the service and the shell that started it were killed).
 */
export function killReader(child: ChildProcess): void {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * Node's permission model for a reader: read access to its script's folder and to the
 * node_modules folders its requires resolve from (its folder's and each parent's); no writes,
 * no child processes; a thread only for its watchdog. Nothing under /proc: Node checks a path as
 * written, so a grant of /proc/self/task would reach every file through its threads' `root` and
 * `cwd` links. The flag is `--permission` from Node 22.13 and `--experimental-permission` before.
 */
function permissionArgs(script: string): string[] {
  const flag = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
  const readable = new Set([dirname(script)]);
  for (let dir = dirname(script); ; dir = dirname(dir)) {
    const modules = join(dir, 'node_modules');
    // A node_modules that is a symbolic link (a shared install) is read both through the link
    // (module resolution) and at its target (the loader's real paths): each is granted.
    if (existsSync(modules)) readable.add(modules).add(realpathSync(modules));
    if (dirname(dir) === dir) break;
  }
  return [flag, '--allow-worker', ...[...readable].map((path) => `--allow-fs-read=${path}`)];
}
