/**
 * The dependency rule (ARCHITECTURE §3.1) is enforced by `npm run lint`: files that break it,
 * planted in the libraries, fail lint with the boundary rule, and files that keep it pass.
 *
 * The lint runs the way `npm run lint` does: every step of the script before `eslint .` (the
 * project-graph step), then the same ESLint binary and config on the planted files only (one
 * ESLint process; the clean probes prove a failure is not just "lint always fails"). Planted
 * files are named `__boundary-probe-*` and deleted as soon as ESLint has run, whatever happens.
 */
import { spawnSync, type SpawnSyncOptions, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const PREFIX = '__boundary-probe-';
const RUN = `${process.pid}-${Date.now().toString(36)}`;
const BOUNDARIES = '@nx/enforce-module-boundaries';

interface Probe {
  /** what the probe shows, also the jest test name */
  readonly title: string;
  /** directory (of a project) the probe is planted in, relative to the repository root */
  readonly dir: string;
  readonly source: string;
  /** `clean`: no lint message at all; otherwise the rule and message expected */
  readonly expect: 'clean' | { readonly ruleId: string; readonly message: RegExp };
}

const typeOf = (imports: Record<string, string>): string =>
  Object.entries(imports)
    .map(([name, from]) => `import type * as ${name} from '${from}';\n`)
    .join('') + `export type Probe = [${Object.keys(imports).map((name) => `typeof ${name}`).join(', ')}];\n`;

const PROBES: readonly Probe[] = [
  // (a) framework code in the domain
  {
    title: 'a domain importing @nestjs/common fails',
    dir: 'libs/memory/domain',
    source: "import { Module } from '@nestjs/common';\n\nexport const probe = Module;\n",
    expect: { ruleId: BOUNDARIES, message: /"type:domain" is not allowed to import "@nestjs\/common"/ },
  },
  // (b) another context's application
  {
    title: "keys application importing memory's application fails",
    dir: 'libs/keys/application',
    source: typeOf({ Other: '@lore/memory/application' }),
    expect: { ruleId: BOUNDARIES, message: /"scope:keys" can only depend on/ },
  },
  // (c) a store in the HTTP edge
  {
    title: 'the gateway importing a storage adapter fails',
    dir: 'libs/gateway',
    source: typeOf({ Store: '@lore/platform/documents/sqlite' }),
    expect: { ruleId: BOUNDARIES, message: /"type:gateway" can only depend on/ },
  },
  // (d) another context's contracts in a context's http library
  {
    title: "memory http importing keys' contracts fails",
    dir: 'libs/memory/http',
    source: typeOf({ Keys: '@lore/keys/contracts' }),
    expect: { ruleId: BOUNDARIES, message: /"type:http" and "scope:memory" can only depend on/ },
  },
  {
    title: 'the gateway importing a storage driver fails',
    dir: 'libs/gateway',
    source: typeOf({ Driver: 'better-sqlite3' }),
    expect: { ruleId: BOUNDARIES, message: /"type:gateway" is not allowed to import "better-sqlite3"/ },
  },
  {
    title: 'the kernel importing a port fails',
    dir: 'libs/platform/kernel',
    source: typeOf({ Port: '@lore/platform/transport/port' }),
    // (a circular dependency, once the graph has edges: the transport port imports the kernel)
    expect: { ruleId: BOUNDARIES, message: /"type:kernel" cannot depend on any libs with tags|Circular dependency/ },
  },
  {
    title: 'the gateway process importing application code fails',
    dir: 'apps/gateway',
    source: typeOf({ App: '@lore/keys/application' }),
    expect: { ruleId: BOUNDARIES, message: /"type:app" and "scope:gateway" can only depend on/ },
  },
  {
    title: "the knowledge extraction importing the context's application fails",
    dir: 'libs/knowledge/extraction',
    source: typeOf({ App: '@lore/knowledge/application' }),
    expect: { ruleId: BOUNDARIES, message: /"type:compute" can only depend on/ },
  },
  {
    title: "memory application importing knowledge's extraction fails",
    dir: 'libs/memory/application',
    source: typeOf({ Extraction: '@lore/knowledge/extraction' }),
    expect: { ruleId: BOUNDARIES, message: /"scope:memory" can only depend on/ },
  },
  // (e) the same places, importing what they may
  {
    title: 'a domain importing the kernel and zod passes',
    dir: 'libs/memory/domain',
    source: typeOf({ Kernel: '@lore/platform/kernel', Zod: 'zod' }),
    expect: 'clean',
  },
  {
    title: "keys application importing its domain, the platform and memory's contracts passes",
    dir: 'libs/keys/application',
    source: typeOf({
      Domain: '@lore/keys/domain',
      Cqrs: '@lore/platform/cqrs',
      Port: '@lore/platform/event-store/port',
      Contracts: '@lore/memory/contracts',
    }),
    expect: 'clean',
  },
  {
    title: 'the gateway importing contracts, http, the kernel and the transport port passes',
    dir: 'libs/gateway',
    source: typeOf({
      Keys: '@lore/keys/contracts',
      Memory: '@lore/memory/contracts',
      Http: '@lore/platform/http',
      Kernel: '@lore/platform/kernel',
      Transport: '@lore/platform/transport/port',
      Fastify: 'fastify',
    }),
    expect: 'clean',
  },
  {
    title: 'knowledge application importing the knowledge extraction passes',
    dir: 'libs/knowledge/application',
    source: typeOf({ Extraction: '@lore/knowledge/extraction' }),
    expect: 'clean',
  },
  {
    title: 'knowledge http importing the knowledge extraction passes',
    dir: 'libs/knowledge/http',
    source: typeOf({ Extraction: '@lore/knowledge/extraction', Contracts: '@lore/knowledge/contracts' }),
    expect: 'clean',
  },
  {
    title: 'memory http importing its contracts, platform http and the kernel passes',
    dir: 'libs/memory/http',
    source: typeOf({ Own: '@lore/memory/contracts', Http: '@lore/platform/http', Kernel: '@lore/platform/kernel' }),
    expect: 'clean',
  },
];

interface LintMessage {
  ruleId: string | null;
  message: string;
  severity: number;
}
interface LintResult {
  filePath: string;
  messages: LintMessage[];
}

const planted = PROBES.map((probe, i) => ({ probe, file: join(ROOT, probe.dir, `${PREFIX}${RUN}-${i}.ts`) }));

function removePlanted(): void {
  for (const { file } of planted) rmSync(file, { force: true });
}

/** Probes left by a run that was killed (older than ten minutes, so a concurrent run is left alone). */
function removeStaleProbes(): void {
  for (const dir of new Set(PROBES.map((p) => join(ROOT, p.dir)))) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (name.startsWith(PREFIX) && Date.now() - statSync(file).mtimeMs > 10 * 60_000) rmSync(file, { force: true });
    }
  }
}

const childEnv = {
  ...process.env,
  CI: 'true',
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  FORCE_COLOR: '0',
  PATH: [join(ROOT, 'node_modules', '.bin'), process.env['PATH'] ?? ''].join(delimiter),
};

function run(command: string, args: readonly string[], options: SpawnSyncOptions = {}): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    env: childEnv,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  }) as SpawnSyncReturns<string>;
  if (result.error) throw result.error;
  return result;
}

/** `npm run lint`, on the planted files: the steps before `eslint .`, then ESLint. */
function lintPlanted(): { results: Map<string, LintMessage[]>; output: string } {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const steps = (pkg.scripts['lint'] ?? '').split('&&').map((step) => step.trim());
  const eslintStep = steps.pop();
  if (eslintStep !== 'eslint .') throw new Error(`the lint script no longer ends in "eslint .": ${pkg.scripts['lint']}`);
  let output = '';
  for (const step of steps) {
    const result = run(step, [], { shell: true });
    output += result.stdout + result.stderr;
    if (result.status !== 0) throw new Error(`lint step "${step}" failed (${result.status}):\n${output}`);
  }
  const eslint = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
  const result = run(process.execPath, [eslint, '--format', 'json', ...planted.map((p) => p.file)]);
  output += result.stderr;
  if (result.status !== 0 && result.status !== 1) throw new Error(`eslint crashed (${result.status}):\n${output}`);
  // The plugin writes "No cached ProjectGraph…" to stdout when it skips; that must never happen.
  const json = result.stdout.trim();
  if (!json.startsWith('[')) throw new Error(`eslint printed more than its report:\n${result.stdout}\n${output}`);
  const results = new Map((JSON.parse(json) as LintResult[]).map((r) => [r.filePath, r.messages] as const));
  return { results, output: output + result.stdout };
}

describe('the dependency rule (npm run lint)', () => {
  let lint: { results: Map<string, LintMessage[]>; output: string } | undefined;

  beforeAll(() => {
    removeStaleProbes();
    for (const dir of new Set(PROBES.map((p) => p.dir))) {
      if (!existsSync(join(ROOT, dir, 'project.json'))) throw new Error(`${dir} is not a project (no project.json)`);
    }
    try {
      for (const { probe, file } of planted) writeFileSync(file, probe.source, { flag: 'wx' });
      lint = lintPlanted();
    } finally {
      removePlanted();
    }
  }, 180_000);

  afterAll(() => removePlanted());

  it('computes the project graph, so the rule is not skipped', () => {
    expect(lint?.output).not.toMatch(/No cached ProjectGraph/);
  });

  it.each(planted.map(({ probe, file }) => [probe.title, probe, file] as const))('%s', (_title, probe, file) => {
    const messages = lint?.results.get(file);
    expect(messages).toBeDefined();
    if (probe.expect === 'clean') {
      expect(messages).toEqual([]);
    } else {
      const { ruleId, message } = probe.expect;
      expect(messages).toEqual(
        expect.arrayContaining([expect.objectContaining({ ruleId, severity: 2, message: expect.stringMatching(message) })]),
      );
    }
  });
});
