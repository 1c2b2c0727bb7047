// Runs once per `jest` invocation, before any worker starts (workers inherit the environment):
// names the run, so that suites needing dist/ build it once per run however many workers ask
// (libs/platform/testing/built-dist.ts).
module.exports = async () => {
  process.env.LORE_TEST_RUN_ID = `${process.pid}-${Date.now()}`;
};
