/**
 * Fitting the next turn's context into a token budget. Sections get shares of the budget
 * (the recent conversation half, passages 30 %, memories 20 %), filled in rank order; what a
 * section leaves unused goes to the others in the same order. The newest message is taken
 * first whatever the shares; older messages stop at the first that does not fit, so the
 * conversation stays contiguous; memories and passages skip what does not fit and try the
 * next, smaller one.
 */
export interface Candidate {
  readonly tokens: number;
}

export interface BudgetInput<M extends Candidate, R extends Candidate, C extends Candidate> {
  readonly budget: number;
  /** Newest first. */
  readonly messages: readonly M[];
  /** Best first. */
  readonly memories: readonly R[];
  /** Best first. */
  readonly chunks: readonly C[];
}

export interface BudgetResult<M, R, C> {
  /** Oldest first, as a prompt reads them. */
  readonly messages: M[];
  readonly memories: R[];
  readonly chunks: C[];
}

const SHARES = { messages: 0.5, chunks: 0.3, memories: 0.2 } as const;

export function fitToBudget<M extends Candidate, R extends Candidate, C extends Candidate>(input: BudgetInput<M, R, C>): BudgetResult<M, R, C> {
  let left = input.budget;
  const taken = { messages: new Set<number>(), memories: new Set<number>(), chunks: new Set<number>() };
  const take = (kind: keyof typeof taken, items: readonly Candidate[], allowance: number, contiguous: boolean): void => {
    let spent = 0;
    for (let i = 0; i < items.length; i++) {
      if (taken[kind].has(i)) continue;
      const tokens = items[i]?.tokens ?? 0;
      if (tokens <= Math.min(allowance - spent, left)) {
        taken[kind].add(i);
        spent += tokens;
        left -= tokens;
      } else if (contiguous) return;
    }
  };
  // The newest message first, whatever the shares: the turn being answered.
  take('messages', input.messages.slice(0, 1), left, true);
  const shares = { messages: Math.floor(input.budget * SHARES.messages), chunks: Math.floor(input.budget * SHARES.chunks), memories: Math.floor(input.budget * SHARES.memories) };
  const newestTokens = taken.messages.has(0) ? (input.messages[0]?.tokens ?? 0) : 0;
  take('messages', input.messages, Math.max(0, shares.messages - newestTokens), true);
  take('chunks', input.chunks, shares.chunks, false);
  take('memories', input.memories, shares.memories, false);
  // What a section left over goes to the others.
  take('messages', input.messages, left, true);
  take('chunks', input.chunks, left, false);
  take('memories', input.memories, left, false);
  const pick = <T>(items: readonly T[], indexes: Set<number>): T[] => items.filter((_, i) => indexes.has(i));
  return {
    messages: pick(input.messages, taken.messages).reverse(),
    memories: pick(input.memories, taken.memories),
    chunks: pick(input.chunks, taken.chunks),
  };
}
