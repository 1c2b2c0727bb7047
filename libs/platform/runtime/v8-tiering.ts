import { setFlagsFromString } from 'node:v8';

/**
 * The interrupt budget Lore's server processes run with on V8 11 (Node 20), in bytes of
 * bytecode run between tier-up checks; V8 11's own is 67,584. A request's path through Lore
 * runs through hundreds of functions, and with V8's budget they stayed in the interpreter and
 * the baseline compiler for the first thousands of requests after a start: the first 5,000
 * message appends cost ~1.5× the CPU of the next 20,000. With 8,192, hot functions reach
 * TurboFan sooner; measured (tools/bench, README "Node flags"): the first 5,000 appends
 * 16–25 % faster, the same CPU once warm.
 */
export const SERVING_INTERRUPT_BUDGET = 8192;

/**
 * The V8 flag that lowers the interrupt budget, when this is V8 11 and the operator set none.
 * V8 13 (Node 24) has no `--interrupt-budget` and prints an error for it; it tiers up through
 * Maglev early anyway. V8 12 (Node 22) was not measured, so it is left as it is.
 */
export function servingTieringFlag(v8Version: string, nodeArgs: readonly string[]): string | null {
  if (Number(v8Version.split('.')[0]) !== 11) return null;
  if (nodeArgs.some((arg) => /^--?interrupt[-_]budget=/.test(arg))) return null;
  return `--interrupt-budget=${SERVING_INTERRUPT_BUDGET}`;
}

/**
 * Applies {@link servingTieringFlag} to this process. V8 reads the budget each time it resets a
 * function's counter, so setting it at start-up, after the bundle has loaded, still covers
 * every request. Server entry points only: not for tests or one-shot tools.
 */
export function tierUpSooner(): void {
  // Node refuses V8's flag in NODE_OPTIONS, so an operator's own can only be on the command line.
  const flag = servingTieringFlag(process.versions.v8, process.execArgv);
  if (flag !== null) setFlagsFromString(flag);
}
