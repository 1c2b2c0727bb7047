/**
 * ESLint flat config (ARCHITECTURE §3.1 and §3.9).
 *
 * - Type-checked typescript-eslint rules on every .ts file of apps/, libs/ and tools/.
 * - The dependency rule of §3.1 as `@nx/enforce-module-boundaries` over the tags in each
 *   project.json (`type:*` = layer, `scope:*` = bounded context, plus `port:transport`,
 *   `kind:storage` and `kind:runtime`, which single out one port and some adapters and hosts).
 *   A violation is a lint error, not a review comment.
 *
 * The rule reads the Nx project graph from Nx's on-disk cache (.nx/workspace-data) and does
 * not compute it. `npm run lint` therefore runs `node tools/lint/project-graph.mjs` first, which
 * computes the graph locally (nx.json: neverConnectToCloud, no daemon; no network, works with
 * CI=true and no terminal) and writes that cache. Without the cache the rule would print
 * "No cached ProjectGraph is available. The rule will be skipped." and check nothing, so this
 * file refuses to load instead (see `requireProjectGraph`).
 *
 * While nx.json does not turn on @nx/js source analysis (`pluginsConfig`), the graph has no
 * project-to-project edges and `notDependOnLibsWithTags` below sees direct imports only. The
 * layering holds transitively all the same, because every project is checked against its own
 * allow-list: what a project may import may itself import only what its own list says. (Turning
 * the analysis on would make `notDependOnLibsWithTags` transitive, but over spec-file edges too:
 * the NATS adapter's contract spec imports platform/testing, which imports the SQLite stores, so
 * the runtime and the gateway process would "depend on" storage.)
 */
process.env.NX_DAEMON ??= 'false';
process.env.NX_NO_CLOUD ??= 'true';

const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const { defineConfig } = require('eslint/config');
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const nx = require('@nx/eslint-plugin');

/**
 * Fails loudly when the project graph the boundary rule reads is missing (a fresh clone, or
 * `eslint` run without the graph step): a dependency rule that silently skips is worse than none.
 * It asks the same `@nx/devkit` instance the rule uses, through the same call.
 */
function requireProjectGraph() {
  const devkit = require.resolve('@nx/devkit', { paths: [require.resolve('@nx/eslint-plugin')] });
  try {
    require(devkit).readCachedProjectGraph();
  } catch (error) {
    throw new Error(
      'No cached Nx project graph, so @nx/enforce-module-boundaries would check nothing. ' +
        'Run `npm run lint`, or `node tools/lint/project-graph.mjs` before `eslint`.',
      { cause: error },
    );
  }
}
requireProjectGraph();

/** Driver and framework packages that never appear below adapter and host code (§1, §3.1). */
const DRIVERS = ['@nestjs/*', 'fastify', 'better-sqlite3', 'nats', 'mongodb', '@eventstore/*', 'pino'];
/** Storage drivers: never in the HTTP edge (gateway, http libraries), which holds no data. */
const STORAGE_DRIVERS = ['better-sqlite3', 'mongodb', '@eventstore/*'];

/** Bounded contexts: every directory of libs/ but the platform, the gateway and the client SDK (tag `scope:<name>`). */
const CONTEXTS = readdirSync(join(__dirname, 'libs'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !['platform', 'gateway', 'client'].includes(entry.name))
  .map((entry) => entry.name);

const ALL_TYPES = [
  'type:kernel',
  'type:domain',
  'type:contracts',
  'type:port',
  'type:adapter',
  'type:application',
  'type:compute',
  'type:http',
  'type:gateway',
  'type:host',
  'type:testing',
  'type:app',
  'type:client',
];
const except = (...tags) => ALL_TYPES.filter((t) => !tags.includes(t));

/**
 * Layer constraints: what each `type:*` may import. Written as allow-lists of direct
 * dependencies (every project is checked, so each holds transitively) rather than
 * `notDependOnLibsWithTags`, because Nx evaluates the latter over the whole project graph,
 * which (once it has edges) also contains the edges of spec files: an adapter's contract spec
 * importing platform/testing would make every host "depend on" testing.
 *
 * @param {{ inTests: boolean }} opts in spec files a library may also use the test kit and
 *   embedded adapters (§3.4: "never jest-mock your own ports: use the embedded adapters").
 */
function layerConstraints({ inTests }) {
  const testKit = inTests ? ['type:testing', 'type:adapter'] : [];
  /**
   * @param {string | string[]} source a tag, or tags that must all be present
   * @param {string[]} tags what a project with that tag may import
   * @param {{ banned?: string[], notTags?: string[] }} [more] npm packages it may not import, and
   *   tags it may not depend on (not in specs, which may use the test kit and embedded adapters;
   *   see the header about the graph's reach)
   */
  const only = (source, tags, { banned, notTags } = {}) => ({
    ...(Array.isArray(source) ? { allSourceTags: source } : { sourceTag: source }),
    onlyDependOnLibsWithTags: tags.length === 0 && inTests ? testKit : [...tags, ...testKit],
    ...(banned ? { bannedExternalImports: banned } : {}),
    ...(notTags && !inTests ? { notDependOnLibsWithTags: notTags } : {}),
  });
  return [
    only('type:kernel', [], { banned: DRIVERS }),
    only('type:domain', ['type:kernel'], { banned: DRIVERS }),
    only('type:contracts', ['type:kernel'], { banned: DRIVERS }),
    only('type:port', ['type:kernel'], { banned: DRIVERS }),
    // kind:sqlite is the embedded adapters' shared SQLite opening (libs/platform/sqlite).
    only('type:adapter', ['type:port', 'type:kernel', 'kind:sqlite']),
    only('type:application', ['type:domain', 'type:contracts', 'type:port', 'type:application', 'type:compute', 'type:kernel'], {
      banned: DRIVERS,
    }),
    // Computation over inputs that holds no state and opens no store (libs/knowledge/extraction:
    // files to text, in worker threads): both a context's application and its HTTP edge may call it;
    // it sees contracts (its configuration) and the kernel.
    only('type:compute', ['type:contracts', 'type:kernel'], { banned: DRIVERS }),

    // HTTP: a context's routes (libs/<context>/http) see contracts, the shared edge pieces
    // (libs/platform/http), their context's computations and the kernel; which contracts and
    // computations is narrowed by scope below.
    // libs/platform/http itself sees the kernel only.
    only('type:http', ['type:contracts', 'type:http', 'type:compute', 'type:kernel'], { banned: STORAGE_DRIVERS }),
    only(['type:http', 'scope:platform'], ['type:kernel']),

    // The client SDK and the MCP server over it (libs/client): users' code, talking to Lore over
    // HTTP only; nothing of the server, no driver or framework (it runs in browsers too).
    only('type:client', ['type:client'], { banned: DRIVERS }),

    // The HTTP edge (libs/gateway): contracts of any context, the http libraries, the kernel and
    // the transport port; nothing that holds or computes state. It mounts the MCP server
    // (type:client), whose tools call the gateway's own routes.
    only('type:gateway', ['type:contracts', 'type:http', 'type:kernel', 'port:transport', 'type:client'], {
      banned: STORAGE_DRIVERS,
    }),

    // Hosts: libs/platform/host runs a context in a process (stores, projections, messages)
    // and may use everything but apps and the test kit. libs/platform/runtime (`kind:runtime`:
    // config, logger, transport, Nest platform module) is also what the gateway process runs
    // on, so it stays clear of storage adapters, application code and other hosts.
    only('type:host', except('type:app', 'type:testing')),
    only('kind:runtime', ['type:kernel', 'type:port', 'type:adapter'], { notTags: ['kind:storage'] }),

    only('type:testing', except('type:app')),
    { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['*'] },
    // The gateway process (apps/gateway) composes the HTTP edge on the runtime: no storage
    // adapter or driver, no application or domain code, no host but the runtime.
    only(
      ['type:app', 'scope:gateway'],
      [...except('type:application', 'type:domain', 'type:host', 'type:testing', 'type:app'), 'kind:runtime'],
      { banned: STORAGE_DRIVERS, notTags: ['kind:storage', 'type:application', 'type:domain'] },
    ),
  ];
}

/**
 * Context constraints: a context library sees its own context, the platform, and only the
 * `contracts` of other contexts; its http library sees only its own context's contracts. The
 * platform sees only the platform. The gateway and standalone see every context (their layer
 * constraints above say what of it).
 */
const scopeConstraints = [
  { sourceTag: 'scope:platform', onlyDependOnLibsWithTags: ['scope:platform'] },
  ...CONTEXTS.flatMap((context) => [
    {
      sourceTag: `scope:${context}`,
      onlyDependOnLibsWithTags: [`scope:${context}`, 'scope:platform', 'type:contracts'],
    },
    { allSourceTags: ['type:http', `scope:${context}`], onlyDependOnLibsWithTags: [`scope:${context}`, 'scope:platform'] },
  ]),
  { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['*'] },
  { sourceTag: 'scope:client', onlyDependOnLibsWithTags: ['scope:client'] },
  { sourceTag: 'scope:standalone', onlyDependOnLibsWithTags: ['*'] },
];

/**
 * apps/contexts.ts, the registry of contexts, belongs to no project (the rule does not check
 * its own imports; it is a composition root like the apps). App mains import it relatively;
 * the rule would report that as a "relative import of an external resource", so app files may.
 */
const REGISTRY_IMPORTS = ['../contexts'];
/** The console's browser tests (apps/console/browser) start the standalone in-process, as its own e2e specs do. */
const CONSOLE_TEST_IMPORTS = ['../../standalone/bootstrap'];

/** @param {{ inTests: boolean, inApps?: boolean, allow?: string[] }} opts */
const boundaries = ({ inTests, inApps = false, allow = [] }) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [...(inApps ? REGISTRY_IMPORTS : []), ...allow],
    depConstraints: [...layerConstraints({ inTests }), ...scopeConstraints],
  },
];

// The console's browser code is .tsx too (apps/console/src, its own tsconfig: DOM, JSX).
const TS_FILES = ['apps/**/*.ts', 'apps/console/src/**/*.tsx', 'libs/**/*.ts', 'tools/**/*.ts', 'examples/**/*.ts'];
const TEST_FILES = ['**/*.spec.ts', 'libs/gateway/e2e/**/*.ts', 'libs/client/e2e/**/*.ts'];
const APP_FILES = ['apps/*/**/*.ts'];
/** App specs, and the fixtures only they import (apps/gateway/distributed-topology.fixture.ts). */
const APP_TEST_FILES = ['apps/*/**/*.spec.ts', 'apps/*/**/*.fixture.ts'];

module.exports = defineConfig(
  // libs/client/generated: written by openapi-typescript (npm run sdk:generate), checked for drift, not linted.
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/data/**', '**/tmp/**', '.nx/**', '**/.venv/**', 'libs/client/generated/**'] },

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
        FormData: 'readonly',
        Blob: 'readonly',
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

  // App mains may import the context registry, apps/contexts.ts (see REGISTRY_IMPORTS). The
  // gateway process reads it too (routes and /ready): it thereby holds the contexts'
  // definitions, inert until a host builds them with stores. So the registry itself may name
  // definitions and edges only, never a store, a host or a driver (it belongs to no project,
  // so the boundary rule cannot see it); the gateway's bundle is checked as well
  // (apps/gateway/gateway-bundle.int.spec.ts).
  { files: APP_FILES, rules: { '@nx/enforce-module-boundaries': boundaries({ inTests: false, inApps: true }) } },
  { files: APP_TEST_FILES, rules: { '@nx/enforce-module-boundaries': boundaries({ inTests: true, inApps: true }) } },
  // A library's fixtures are imported by its specs only: they may use the test kit as the specs do.
  { files: ['libs/**/*.fixture.ts'], rules: { '@nx/enforce-module-boundaries': boundaries({ inTests: true }) } },
  { files: ['apps/console/browser/**/*.ts'], rules: { '@nx/enforce-module-boundaries': boundaries({ inTests: true, inApps: true, allow: CONSOLE_TEST_IMPORTS }) } },
  // The console runs in browsers: of Lore's code it uses the SDK only (its scope, console, has
  // no scope constraint of its own, so that its browser tests may start Lore).
  {
    files: ['apps/console/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^@lore/(?!client$)', message: 'The console runs in browsers and talks to Lore over HTTP: use @lore/client only.' }] }],
    },
  },
  // Deciders are pure: no Node API either (time, ids and randomness come in with the command).
  // Node's built-ins are not external packages to the boundary rule, so the core rule bans them.
  {
    files: ['libs/*/domain/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: `^(node:.*|${require('node:module').builtinModules.join('|')})$`, message: 'Domain code is pure: no Node API (time, ids and randomness come in with the command).' }] },
      ],
    },
  },
  // Application and domain code name the message fields they refuse (`['message', 'collectionId']`);
  // only the edge knows where a request carried them (the gateway's inApiTerms maps the name to
  // `['body', 'collection_id']`, `['query', …]`, an upload's file). A location starting with an
  // HTTP part here would bypass that mapping and be wrong for every other route or caller.
  {
    files: ['libs/*/application/**/*.ts', 'libs/*/domain/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ArrayExpression > Literal:first-child[value=/^(body|query|path|header)$/]",
          message: "Name the message field (['message', 'collectionId']): the HTTP edge maps it to the request location.",
        },
      ],
    },
  },
  {
    files: ['apps/contexts.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(@lore/platform/[a-z-]+/(sqlite|mongo|esdb|qdrant|files|nats|in-process)|@lore/platform/(host|sqlite)|better-sqlite3|mongodb|@eventstore/.*|@qdrant/.*|sqlite-vec)$',
              message: 'The registry is read by the gateway process: it names context definitions and edges only, never a store, a host or a driver.',
            },
          ],
        },
      ],
    },
  },
);
