// The environment every Lore process a benchmark or probe starts runs with, beside its own.
// Rate limits: one user sends thousands of requests a second, far past the defaults
// (RATE_LIMIT_*); they stay on, so their cost is measured, but never refuse.
// No model downloads: traffic stays on loopback, and a run without MODELS_DIR measures a
// process with no embedding model (none is fetched from the hub meanwhile).
export const BENCH_LORE_ENV = {
  RATE_LIMIT_CALLER_PER_MINUTE: '100000000',
  RATE_LIMIT_CALLER_BURST: '1000000',
  RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000000',
  RATE_LIMIT_WORKSPACE_BURST: '1000000',
  EMBEDDING_LOCAL_DOWNLOAD: 'false',
};
