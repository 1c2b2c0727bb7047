/**
 * ESLint flat config (ARCHITECTURE §3.1 and §3.9).
 *
 * - Type-checked typescript-eslint rules on every .ts file of apps/, libs/ and tools/.
 * - The dependency rule of §3.1 as `@nx/enforce-module-boundaries` over the tags in each
 *   project.json (`type:*` = layer, `scope:*` = bounded context). A violation is a lint
 *   error, not a review comment.
 *
 * Nx builds its project graph locally (nx.json: neverConnectToCloud, no daemon); nothing
 * here talks to a network service, so `npm run lint` works with CI=true and no terminal.
 */
process.env.NX_DAEMON ??= 'false';
process.env.NX_NO_CLOUD ??= 'true';

const { defineConfig } = require('eslint/config');
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const nx = require('@nx/eslint-plugin');

/** Driver and framework packages that never appear below adapter and host code (§1, §3.1). */
const DRIVERS = ['@nestjs/*', 'fastify', 'better-sqlite3', 'nats', 'mongodb', '@eventstore/*', 'pino'];

const ALL_TYPES = [
  'type:kernel',
  'type:domain',
  'type:contracts',
  'type:port',
  'type:adapter',
  'type:application',
  'type:http',
  'type:nest',
  'type:host',
  'type:testing',
  'type:app',
];
const except = (...tags) => ALL_TYPES.filter((t) => !tags.includes(t));

/**
 * Layer constraints: what each `type:*` may import (direct dependencies; every project is
 * checked, so the rule holds transitively). `host` and `testing` are written as allow-lists
 * rather than `notDependOnLibsWithTags`, because Nx evaluates the latter over the whole
 * project graph, which also contains the edges of spec files (an adapter's contract spec
 * importing platform/testing would otherwise make every host "depend on" testing).
 *
 * @param {{ inTests: boolean }} opts in spec files a library may also use the test kit and
 *   embedded adapters (§3.4: "never jest-mock your own ports: use the embedded adapters").
 */
function layerConstraints({ inTests }) {
  const testKit = inTests ? ['type:testing', 'type:adapter'] : [];
  const only = (sourceTag, tags, banned) => ({
    sourceTag,
    onlyDependOnLibsWithTags: tags.length === 0 && inTests ? testKit : [...tags, ...testKit],
    ...(banned ? { bannedExternalImports: DRIVERS } : {}),
  });
  return [
    only('type:kernel', [], true),
    only('type:domain', ['type:kernel'], true),
    only('type:contracts', ['type:kernel'], true),
    only('type:port', ['type:kernel'], true),
    only('type:adapter', ['type:port', 'type:kernel']),
    only(
      'type:application',
      ['type:domain', 'type:contracts', 'type:port', 'type:application', 'type:kernel'],
      true,
    ),
    only('type:http', ['type:kernel']),
    only('type:nest', ['type:application', 'type:contracts', 'type:host', 'type:port', 'type:kernel']),
    only('type:host', except('type:app', 'type:testing')),
    only('type:testing', except('type:app')),
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['*'] },
  ];
}

/**
 * Context constraints: a context library sees its own context, the platform, and only the
 * `contracts` of other contexts. The platform sees only the platform. Composition roots
 * (gateway, standalone) see everything.
 */
const scopeConstraints = [
  { sourceTag: 'scope:platform', onlyDependOnLibsWithTags: ['scope:platform'] },
  { sourceTag: 'scope:keys', onlyDependOnLibsWithTags: ['scope:keys', 'scope:platform', 'type:contracts'] },
  { sourceTag: 'scope:memory', onlyDependOnLibsWithTags: ['scope:memory', 'scope:platform', 'type:contracts'] },
  { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['*'] },
  { sourceTag: 'scope:standalone', onlyDependOnLibsWithTags: ['*'] },
];

const boundaries = ({ inTests }) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [...layerConstraints({ inTests }), ...scopeConstraints],
  },
];

const TS_FILES = ['apps/**/*.ts', 'libs/**/*.ts', 'tools/**/*.ts'];
const TEST_FILES = ['**/*.spec.ts', 'libs/gateway/e2e/**/*.ts'];

module.exports = defineConfig(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/data/**', '**/tmp/**', '.nx/**'] },

  // Plain JavaScript (tools/*.mjs, this file, jest.config.js): recommended JS rules, no type info.
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2023,
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        fetch: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },

  // TypeScript: type-checked rules.
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files: TS_FILES })),
  {
    files: TS_FILES,
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    plugins: { '@nx': nx },
    rules: {
      // §3.9
      '@typescript-eslint/no-floating-promises': 'error',
      // Every switch over a union either names every case or says what happens otherwise
      // (`default:`). The default-counts option is needed for switches over third-party unions
      // (zod's schema kinds and issue codes) that deliberately handle a few members; deciders
      // and projections switch over their own unions without a default, so an unhandled new
      // event type is still reported.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      // Ports are asynchronous (they are shaped for EventStoreDB, MongoDB, NATS), so embedded
      // adapters, handlers and callbacks implementing them are `async` without awaiting;
      // `async` also turns a synchronous throw (e.g. "transport closed") into the rejection
      // the port's contract expects. Removing it would change behaviour, so the rule is off.
      '@typescript-eslint/require-await': 'off',
      // Re-propagating a caught value (`catch (error) { return Promise.reject(error) }`) is
      // legitimate: `error` is `unknown` by tsconfig, and wrapping it would alter what callers see.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // §3.1
      '@nx/enforce-module-boundaries': boundaries({ inTests: false }),
    },
  },

  // Specs and the HTTP e2e suites: response bodies parsed from JSON are `any` by nature, and
  // a test may compose its library with the test kit and embedded adapters (see above).
  {
    files: TEST_FILES,
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@nx/enforce-module-boundaries': boundaries({ inTests: true }),
    },
  },
);
