// Regenerates the Python SDK's generated modules (sdks/python/src/lore_client/) from the
// OpenAPI document the current code serves, as the TypeScript generator stores it
// (libs/client/generated/openapi.json; its drift check proves it current, so `npm run
// sdk:generate` runs that generator first):
//   models.py    pydantic v2 models of every response (datamodel-code-generator)
//   requests.py  TypedDicts of every JSON request body and query string (the same generator),
//                which the hand-written resources take as typed keyword arguments
//   _sync/*.py   the synchronous client, derived from the hand-written asynchronous one (_async/)
//                by the token rewrites below (as httpcore's unasync script does)
//
//   node tools/sdk/generate-python.mjs                     write them
//   node tools/sdk/generate-python.mjs --check             write nothing; exit 1 naming the files that
//                                                          differ (the drift check, run by
//                                                          sdks/python/tests/test_generated_code.py)
//   … --document FILE                                      generate from that document instead (the
//                                                          tests use it to show that a changed schema
//                                                          is caught)
// Needs the SDK's virtual environment (npm run sdk:python:install), which holds the generator.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENT = join(REPO_ROOT, 'libs/client/generated/openapi.json');

const SDK = join(REPO_ROOT, 'sdks/python');
const PACKAGE = join(SDK, 'src/lore_client');
const CODEGEN = join(SDK, '.venv/bin/datamodel-codegen');

/** Operations served under a second, unprefixed path too: the SDK calls the /api/v1 one. */
const isAlias = (operationId) => operationId.endsWith('_unprefixed');
const pascal = (snake) => snake.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

/** zod's integers carry JavaScript's safe-integer bounds, which say nothing to Python: dropped. */
function withoutSafeIntegerBounds(value) {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).filter(([key, v]) => !((key === 'minimum' && v === -Number.MAX_SAFE_INTEGER) || (key === 'maximum' && v === Number.MAX_SAFE_INTEGER)));
  return Object.fromEntries(entries.map(([key, v]) => [key, withoutSafeIntegerBounds(v)]));
}

function* operations(document) {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) if (!isAlias(operation.operationId)) yield operation;
  }
}

/**
 * Two OpenAPI documents for the generator, whose components are named after operations:
 * responses (the named records plus each inline success body as `<Operation>Response`) and
 * requests (each inline JSON body as `<Operation>Body`, each query string as `<Operation>Query`).
 */
function splitDocument(document) {
  const responses = { ...document.components.schemas };
  const requests = {};
  const define = (schemas, name, schema) => {
    if (name in schemas) throw new Error(`generated name ${name} is taken`);
    schemas[name] = schema;
  };
  for (const operation of operations(document)) {
    const name = pascal(operation.operationId);
    const body = operation.requestBody?.content?.['application/json']?.schema;
    if (body !== undefined) define(requests, `${name}Body`, body);
    const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
    if (query.length > 0) {
      const properties = Object.fromEntries(query.map((p) => [p.name, { ...p.schema, ...(p.description ? { description: p.description } : {}) }]));
      const required = query.filter((p) => p.required).map((p) => p.name);
      define(requests, `${name}Query`, { type: 'object', properties, ...(required.length > 0 ? { required } : {}) });
    }
    // One model per operation: a 202 (work under way) answers the same body as its 200.
    const successes = Object.entries(operation.responses)
      .filter(([status]) => Number(status) < 300)
      .map(([, response]) => response.content?.['application/json']?.schema)
      .filter((schema) => schema !== undefined && schema.$ref === undefined);
    if (successes.some((schema) => JSON.stringify(schema) !== JSON.stringify(successes[0]))) throw new Error(`${operation.operationId} answers different bodies on success`);
    if (successes[0] !== undefined) define(responses, `${name}Response`, successes[0]);
  }
  const asDocument = (schemas) => ({ openapi: document.openapi, info: document.info, paths: {}, components: { schemas } });
  return { responses: asDocument(responses), requests: asDocument(requests) };
}

const COMMON_OPTIONS = [
  '--input-file-type', 'openapi',
  '--openapi-scopes', 'schemas',
  '--target-python-version', '3.10',
  '--use-standard-collections',
  '--use-union-operator',
  '--use-annotated',
  '--field-constraints',
  '--use-schema-description',
  '--use-field-description',
  '--use-double-quotes',
  '--enum-field-as-literal', 'all',
  '--disable-timestamp',
  '--reuse-model',
  '--naming-strategy', 'parent-prefixed',
  '--collapse-root-models',
  '--formatters', 'builtin',
];

function codegen(document, output, options) {
  const dir = mkdtempSync(join(tmpdir(), 'lore-sdk-py-'));
  try {
    const input = join(dir, 'openapi.json');
    writeFileSync(input, JSON.stringify(document));
    execFileSync(CODEGEN, ['--input', input, '--output', output, ...COMMON_OPTIONS, ...options], { stdio: ['ignore', 'inherit', 'inherit'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What turns the asynchronous client's source into the synchronous one's, in order. */
const UNASYNC = [
  [/\basync def\b/g, 'def'],
  [/\basync with\b/g, 'with'],
  [/\basync for\b/g, 'for'],
  [/\bawait /g, ''],
  [/\b__aenter__\b/g, '__enter__'],
  [/\b__aexit__\b/g, '__exit__'],
  [/\b__aiter__\b/g, '__iter__'],
  [/\b__anext__\b/g, '__next__'],
  [/\baclose\b/g, 'close'],
  [/\baiter_lines\b/g, 'iter_lines'],
  [/\baiter_bytes\b/g, 'iter_bytes'],
  [/\baread\b/g, 'read'],
  [/\bStopAsyncIteration\b/g, 'StopIteration'],
  [/\bAsyncIterator\b/g, 'Iterator'],
  [/\bAsyncIterable\b/g, 'Iterable'],
  [/\bAsyncGenerator\b/g, 'Generator'],
  [/\bAwaitable\[(\w+)\]/g, '$1'],
  [/\basynccontextmanager\b/g, 'contextmanager'],
  [/\bhttpx\.AsyncClient\b/g, 'httpx.Client'],
  [/\bhttpx\.AsyncBaseTransport\b/g, 'httpx.BaseTransport'],
  [/\basync_sleep\b/g, 'sync_sleep'],
  [/\bAsyncLore\b/g, 'Lore'],
  [/\bAsync([A-Z]\w*)\b/g, '$1'],
];

function unasync(source) {
  const header = '# Generated from ../_async by tools/sdk/generate-python.mjs: edit that, then `npm run sdk:generate:python`.\n';
  return header + UNASYNC.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), source);
}

/** Every generated file's path (relative to the package) and text. */
async function generate() {
  if (!existsSync(CODEGEN)) throw new Error(`${CODEGEN} is missing: run \`npm run sdk:python:install\` first`);
  const documentArg = process.argv.indexOf('--document');
  const document = JSON.parse(readFileSync(documentArg >= 0 ? process.argv[documentArg + 1] : DOCUMENT, 'utf8'));
  const { responses, requests } = splitDocument(withoutSafeIntegerBounds(document));
  const out = mkdtempSync(join(tmpdir(), 'lore-sdk-py-out-'));
  try {
    codegen(responses, join(out, 'models.py'), ['--output-model-type', 'pydantic_v2.BaseModel', '--extra-fields', 'allow']);
    codegen(requests, join(out, 'requests.py'), ['--output-model-type', 'typing.TypedDict']);
    const files = { 'models.py': readFileSync(join(out, 'models.py'), 'utf8'), 'requests.py': readFileSync(join(out, 'requests.py'), 'utf8') };
    for (const name of readdirSync(join(PACKAGE, '_async')).filter((n) => n.endsWith('.py')).sort()) {
      files[`_sync/${name}`] = unasync(readFileSync(join(PACKAGE, '_async', name), 'utf8'));
    }
    return files;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

async function main() {
  const check = process.argv.includes('--check');
  const files = await generate();
  const stale = Object.keys(files).filter((name) => !existsSync(join(PACKAGE, name)) || readFileSync(join(PACKAGE, name), 'utf8') !== files[name]);
  const current = new Set(Object.keys(files).filter((name) => name.startsWith('_sync/')));
  const orphans = existsSync(join(PACKAGE, '_sync')) ? readdirSync(join(PACKAGE, '_sync')).filter((n) => n.endsWith('.py') && !current.has(`_sync/${n}`)).map((n) => `_sync/${n}`) : [];
  if (check) {
    if (stale.length + orphans.length === 0) return console.log('lore_client: generated code is current');
    console.error(`lore_client: generated code differs from what the current API produces: ${[...stale, ...orphans].join(', ')}\nRun \`npm run sdk:generate:python\` and commit the result.`);
    process.exit(1);
  }
  mkdirSync(join(PACKAGE, '_sync'), { recursive: true });
  for (const name of stale) writeFileSync(join(PACKAGE, name), files[name]);
  for (const name of orphans) rmSync(join(PACKAGE, name));
  console.log(`lore_client: ${stale.length + orphans.length === 0 ? 'already current' : `wrote ${[...stale, ...orphans].join(', ')}`}`);
}

await main();
