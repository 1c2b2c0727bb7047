/**
 * Counts turns of the event loop (a setImmediate callback each) from now until the returned
 * function is called, which answers the count: whether long work let other work in between.
 */
export function countTurns(): () => number {
  let turns = 0;
  let counting = true;
  const count = (): void => {
    turns += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return () => {
    counting = false;
    return turns;
  };
}
