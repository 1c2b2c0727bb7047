/** Time comes in from outside so deciders stay pure and tests stay deterministic. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(iso: string): Clock & { advance(ms: number): void } {
  let t = Date.parse(iso);
  return {
    now: () => new Date(t),
    advance: (ms: number) => {
      t += ms;
    },
  };
}
