/**
 * The console's browser tests (`npm run test:console`, after the build): Playwright driving
 * Chromium against a real standalone Lore. Kept out of `npm test` so CI runs them once (on
 * Node 20), not once per Node version; same transform and module mapping as every other spec.
 */
const [base] = require('./jest.config.js').projects;

module.exports = {
  testTimeout: 60000,
  projects: [{ ...base, displayName: 'console', testMatch: ['<rootDir>/apps/console/**/*.browser.spec.ts'] }],
};
