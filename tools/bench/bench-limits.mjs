// Rate limits for benchmarks and probes: one user sends thousands of requests a second, far
// past the defaults (RATE_LIMIT_*). They stay on, so their cost is measured, but never refuse.
export const BENCH_RATE_LIMITS = {
  RATE_LIMIT_CALLER_PER_MINUTE: '100000000',
  RATE_LIMIT_CALLER_BURST: '1000000',
  RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000000',
  RATE_LIMIT_WORKSPACE_BURST: '1000000',
};
