/**
 * The integration catalog (SPEC §4.6) is data: entries/*.json, one file per category.
 * Every entry must match integration-entry.schema.json (Ajv, draft 2020-12, strict), and the
 * rules JSON Schema cannot state are checked here. Each check also runs against a planted bad
 * entry, so a check that silently stops firing fails the suite.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type FieldsSchema = { properties: Record<string, Record<string, Json>>; required: string[] };
type Verification = {
  url: string;
  headers: Record<string, string>;
  body?: string;
  basic_auth?: { username: string; password: string };
  aws_sigv4?: { service: string; region: string };
};
type AuthMethod = {
  id: string;
  type: 'api_key' | 'oauth2' | 'basic' | 'none';
  fields: FieldsSchema;
  secret_fields: string[];
  required_config?: string[];
  oauth2?: { grant_type: string; authorization_url?: string; token_url?: string; refresh_url?: string; discovery_url?: string; [quirk: string]: Json | undefined };
  verification?: Verification;
};
type Entry = {
  id: string;
  type: 'integration' | 'model' | 'vector_store';
  integration_type: string;
  category: string;
  categories: string[];
  status: 'active' | 'beta' | 'deprecated' | 'maintenance';
  config_schema: FieldsSchema;
  auth_methods: AuthMethod[];
  default_auth_method_id: string;
  deprecation: null | { replacement_id: string | null };
};
type Located = { file: string; entry: Entry };

const here = __dirname;
const entriesDir = join(here, 'entries');
const entrySchema = JSON.parse(readFileSync(join(here, 'integration-entry.schema.json'), 'utf8')) as Record<string, Json>;

const newAjv = () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
};
const validateEntry = newAjv().compile(entrySchema);

function loadCatalog(): Located[] {
  return readdirSync(entriesDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const parsed = JSON.parse(readFileSync(join(entriesDir, file), 'utf8')) as unknown;
      if (!Array.isArray(parsed)) throw new Error(`${file}: not an array of entries`);
      return (parsed as Entry[]).map((entry) => ({ file, entry }));
    });
}
const clone = <T>(value: T): T => structuredClone(value);

// ---------------------------------------------------------------------------------------------
// Checks. Each returns human-readable problems; an empty list means the catalog passes.
// ---------------------------------------------------------------------------------------------

function schemaProblems(catalog: readonly Located[]): string[] {
  return catalog.flatMap(({ file, entry }) => {
    const where = `${file} ${entry.id}`;
    return validateEntry(entry) ? [] : (validateEntry.errors ?? []).map((e) => `${where}: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  });
}

function uniqueIdProblems(catalog: readonly Located[]): string[] {
  const seen = new Map<string, string>();
  return catalog.flatMap(({ file, entry }) => {
    const first = seen.get(entry.id);
    seen.set(entry.id, first ?? file);
    return first === undefined ? [] : [`${entry.id}: duplicate id (in ${first} and ${file})`];
  });
}

function fileCategoryProblems(catalog: readonly Located[]): string[] {
  return catalog.flatMap(({ file, entry }) => {
    const problems: string[] = [];
    if (file !== `${entry.category.replace(/_/g, '-')}.json`) problems.push(`${entry.id}: category ${entry.category} does not belong in ${file}`);
    if (!entry.categories.includes(entry.category)) problems.push(`${entry.id}: categories does not include category ${entry.category}`);
    return problems;
  });
}

function authMethodProblems(catalog: readonly Located[]): string[] {
  return catalog.flatMap(({ entry }) => {
    const ids = entry.auth_methods.map((m) => m.id);
    const problems: string[] = [];
    if (!ids.includes(entry.default_auth_method_id)) problems.push(`${entry.id}: default_auth_method_id ${entry.default_auth_method_id} is not one of [${ids.join(', ')}]`);
    const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (dup.length > 0) problems.push(`${entry.id}: duplicate auth method ids ${dup.join(', ')}`);
    for (const m of entry.auth_methods) {
      for (const name of m.secret_fields) if (!(name in m.fields.properties)) problems.push(`${entry.id}/${m.id}: secret field ${name} is not a property of fields`);
      for (const name of m.required_config ?? []) if (!(name in entry.config_schema.properties)) problems.push(`${entry.id}/${m.id}: required_config ${name} is not a property of config_schema`);
      if (m.verification?.aws_sigv4 !== undefined)
        for (const name of ['access_key_id', 'secret_access_key'])
          if (!(name in m.fields.properties)) problems.push(`${entry.id}/${m.id}: aws_sigv4 verification needs credential field ${name}`);
    }
    return problems;
  });
}

/** config_schema and every fields must themselves compile as strict JSON Schemas, and their defaults must be valid. */
function embeddedSchemaProblems(catalog: readonly Located[]): string[] {
  const ajv = newAjv();
  const check = (where: string, schema: FieldsSchema): string[] => {
    try {
      ajv.compile(schema);
    } catch (e) {
      return [`${where}: not a valid JSON Schema: ${(e as Error).message}`];
    }
    return Object.entries(schema.properties).flatMap(([name, prop]) => {
      if (!('default' in prop)) return [];
      const validate = ajv.compile(prop);
      return validate(prop['default']) ? [] : [`${where}.${name}: default ${JSON.stringify(prop['default'])} does not satisfy its own schema`];
    });
  };
  return catalog.flatMap(({ entry }) => [
    ...check(`${entry.id} config_schema`, entry.config_schema),
    ...entry.auth_methods.flatMap((m) => check(`${entry.id}/${m.id} fields`, m.fields)),
  ]);
}

const placeholder = /\{\{\s*([^{}]*?)\s*\}\}/g;
const reference = /^(config|credentials|token)\.([a-z][a-z0-9_]*)$/;

/** Every {{config.x}} names a config field the method can count on, every {{credentials.y}} a field of the method, {{token.access_token}} only in oauth2 methods. */
function placeholderProblems(catalog: readonly Located[]): string[] {
  return catalog.flatMap(({ entry }) =>
    entry.auth_methods.flatMap((m) => {
      const where = `${entry.id}/${m.id}`;
      const config = entry.config_schema;
      const available = (name: string) =>
        config.required.includes(name) || (m.required_config ?? []).includes(name) || config.properties[name]?.['default'] !== undefined;
      const templates: Array<[string, string, boolean]> = []; // [label, template, credentials allowed]
      const v = m.verification;
      if (v !== undefined) {
        templates.push(['verification.url', v.url, true]);
        for (const [name, value] of Object.entries(v.headers)) templates.push([`header name ${name}`, name, false], [`header ${name}`, value, true]);
        if (v.body !== undefined) templates.push(['body', v.body, true]);
        if (v.basic_auth !== undefined) templates.push(['basic_auth.username', v.basic_auth.username, true], ['basic_auth.password', v.basic_auth.password, true]);
        if (v.aws_sigv4 !== undefined) templates.push(['aws_sigv4.region', v.aws_sigv4.region, false]);
      }
      for (const key of ['authorization_url', 'token_url', 'refresh_url', 'discovery_url'] as const) {
        const url = m.oauth2?.[key];
        if (url !== undefined) templates.push([`oauth2.${key}`, url, false]);
      }
      return templates.flatMap(([label, template, credentialsAllowed]) => {
        const problems: string[] = [];
        for (const [, inner = ''] of template.matchAll(placeholder)) {
          const ref = reference.exec(inner);
          const [, ns, name = ''] = ref ?? [];
          if (ref === null) problems.push(`${where} ${label}: malformed placeholder {{${inner}}}`);
          else if (ns === 'config' && !(name in config.properties)) problems.push(`${where} ${label}: {{config.${name}}} is not a config_schema property`);
          else if (ns === 'config' && !available(name)) problems.push(`${where} ${label}: {{config.${name}}} is neither required, nor in required_config, nor defaulted`);
          else if (ns === 'credentials' && !credentialsAllowed) problems.push(`${where} ${label}: credentials cannot appear here`);
          else if (ns === 'credentials' && !(name in m.fields.properties)) problems.push(`${where} ${label}: {{credentials.${name}}} is not a field of the method`);
          else if (ns === 'token' && (m.type !== 'oauth2' || name !== 'access_token' || !credentialsAllowed)) problems.push(`${where} ${label}: {{token.${name}}} is only {{token.access_token}} in an oauth2 method's request`);
        }
        if (template.replace(placeholder, '').includes('{{')) problems.push(`${where} ${label}: unterminated placeholder`);
        return problems;
      });
    }),
  );
}

function deprecationProblems(catalog: readonly Located[]): string[] {
  const byId = new Map(catalog.map(({ entry }) => [entry.id, entry]));
  return catalog.flatMap(({ entry }) => {
    const replacement = entry.deprecation?.replacement_id;
    if (replacement === undefined || replacement === null) return [];
    const target = byId.get(replacement);
    if (target === undefined) return [`${entry.id}: replacement_id ${replacement} is not in the catalog`];
    if (target.status === 'deprecated' || target.id === entry.id) return [`${entry.id}: replacement ${replacement} is itself deprecated`];
    return [];
  });
}

const MODEL_PROVIDER_IDS = [
  'openai', 'anthropic', 'gemini', 'vertex-ai', 'mistral', 'cohere', 'azure-openai', 'bedrock', 'ollama', 'vllm',
  'groq', 'together-ai', 'fireworks-ai', 'deepseek', 'xai', 'perplexity', 'voyage-ai', 'openrouter',
] as const;
const VECTOR_STORE_IDS = ['qdrant', 'pinecone', 'weaviate', 'pgvector', 'milvus', 'chroma'] as const;
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  communication: ['slack', 'discord', 'microsoft-teams', 'gmail', 'smtp', 'twilio'],
  productivity: ['notion', 'google-drive', 'confluence', 'jira', 'linear', 'asana', 'trello', 'google-calendar'],
  crm: ['salesforce', 'hubspot', 'pipedrive'],
  support: ['zendesk'],
  storage: ['amazon-s3', 'google-cloud-storage', 'azure-blob-storage', 'dropbox', 'box', 'onedrive'],
  developer_tools: ['github', 'gitlab', 'bitbucket', 'sentry'],
  databases: ['postgresql', 'mysql', 'mongodb', 'snowflake', 'bigquery', 'redis'],
  model_providers: MODEL_PROVIDER_IDS,
  vector_stores: VECTOR_STORE_IDS,
  mcp: ['mcp-server-http'],
  custom: ['rest-api', 'webhook'],
};
const MIN_STATUS = { active: 1, beta: 4, deprecated: 3, maintenance: 2 } as const;
const SELF_HOSTED = { ollama: 'base_url', vllm: 'base_url', qdrant: 'base_url', chroma: 'base_url', milvus: 'base_url', weaviate: 'base_url', postgresql: 'host', mysql: 'host', redis: 'host', pgvector: 'host' } as const;

function coverageProblems(catalog: readonly Located[]): string[] {
  const entries = catalog.map((l) => l.entry);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const problems: string[] = [];
  if (entries.length < 60) problems.push(`only ${entries.length} entries, at least 60 expected`);
  for (const [category, ids] of Object.entries(REQUIRED))
    for (const id of ids) {
      const e = byId.get(id);
      if (e === undefined) problems.push(`missing required entry ${id}`);
      else if (e.category !== category) problems.push(`${id}: category ${e.category}, expected ${category}`);
    }
  for (const id of MODEL_PROVIDER_IDS) {
    const e = byId.get(id);
    if (e !== undefined && (e.type !== 'model' || e.integration_type !== 'model')) problems.push(`${id}: model provider must have type and integration_type model`);
  }
  for (const id of VECTOR_STORE_IDS) if (byId.get(id) !== undefined && byId.get(id)?.type !== 'vector_store') problems.push(`${id}: must have type vector_store`);
  for (const [id, field] of Object.entries(SELF_HOSTED)) {
    const e = byId.get(id);
    if (e !== undefined && !e.config_schema.required.includes(field)) problems.push(`${id}: self-hosted, config_schema must require ${field}`);
  }
  const mcp = entries.filter((e) => e.integration_type === 'mcp');
  if (mcp.length < 3) problems.push(`only ${mcp.length} MCP entries, expected the generic server and at least two remote servers`);
  const generic = byId.get('mcp-server-http');
  if (generic !== undefined && !generic.auth_methods.some((m) => m.type === 'api_key' && m.verification?.headers['Authorization']?.startsWith('Bearer ') === true))
    problems.push('mcp-server-http: needs a bearer-token method');
  const rest = byId.get('rest-api');
  const restTypes = new Set(rest?.auth_methods.map((m) => m.type));
  for (const t of ['api_key', 'basic', 'none'] as const) if (rest !== undefined && !restTypes.has(t)) problems.push(`rest-api: no ${t} method`);
  if (rest !== undefined && rest.auth_methods.filter((m) => m.type === 'api_key').length < 2) problems.push('rest-api: needs both an API-key-header and a bearer method');
  for (const [status, min] of Object.entries(MIN_STATUS)) {
    const n = entries.filter((e) => e.status === status).length;
    if (n < min) problems.push(`only ${n} ${status} entries, at least ${min} expected`);
  }
  return problems;
}

const ALL_CHECKS = { schemaProblems, uniqueIdProblems, fileCategoryProblems, authMethodProblems, embeddedSchemaProblems, placeholderProblems, deprecationProblems, coverageProblems };

// ---------------------------------------------------------------------------------------------

describe('integration catalog', () => {
  const catalog = loadCatalog();

  it('the entry schema itself compiles under Ajv strict mode', () => {
    expect(typeof validateEntry).toBe('function');
  });

  it.each(Object.entries(ALL_CHECKS))('passes %s', (_name, check) => {
    expect(check(catalog)).toEqual([]);
  });
});

describe('each catalog check catches a planted bad entry', () => {
  const catalog = loadCatalog();
  const find = (id: string): Located => {
    const found = catalog.find((l) => l.entry.id === id);
    if (found === undefined) throw new Error(`fixture entry ${id} missing`);
    return clone(found);
  };
  const method = (l: Located, id: string): AuthMethod => {
    const m = l.entry.auth_methods.find((x) => x.id === id);
    if (m === undefined) throw new Error(`fixture method ${l.entry.id}/${id} missing`);
    return m;
  };
  const withPlanted = (bad: Located) => [...catalog, bad];
  const replacing = (bad: Located) => catalog.map((l) => (l.entry.id === bad.entry.id ? bad : l));
  const mutable = (e: Entry) => e as unknown as Record<string, Json>;

  it.each<[string, (l: Located) => void]>([
    ['an unknown property', (l) => { mutable(l.entry)['colour'] = 'red'; }],
    ['a bad integration_type', (l) => { mutable(l.entry)['integration_type'] = 'plugin'; }],
    ['a category outside the enum', (l) => { mutable(l.entry)['category'] = 'games'; }],
    ['a non-kebab id', (l) => { mutable(l.entry)['id'] = 'Slack_2'; }],
    ['deprecated without deprecation info', (l) => { l.entry.status = 'deprecated'; }],
    ['deprecation info on an active entry', (l) => { mutable(l.entry)['deprecation'] = { deprecated_at: '2024-01-01', sunset_at: null, replacement_id: null, reason: 'because reasons' }; }],
    ['oauth2 method without its oauth2 block', (l) => { delete method(l, 'oauth2').oauth2; }],
    ['oauth2 block on an api_key method', (l) => { method(l, 'bot_token').oauth2 = { grant_type: 'client_credentials', token_url: 'https://x.example/token' }; }],
    ['an authorization_code method missing refresh_token', (l) => { delete method(l, 'oauth2').fields.properties['refresh_token']; }],
    ['an authorization_code method that does not say how its token answer is shaped', (l) => { delete (method(l, 'oauth2').oauth2 as Record<string, Json>)['token_response']; }],
    ['an authorization_code method that does not say whether it uses PKCE', (l) => { delete (method(l, 'oauth2').oauth2 as Record<string, Json>)['pkce']; }],
    ['a token pointer that is no JSON Pointer', (l) => { ((method(l, 'oauth2').oauth2 as Record<string, Json>)['token_response'] as Record<string, Json>)['access_token'] = 'authed_user.access_token'; }],
    ['an extra authorization parameter that would override the flow (state)', (l) => { (method(l, 'oauth2').oauth2 as Record<string, Json>)['authorization_params'] = { state: 'fixed' }; }],
    ['a non-secret method with no secret', (l) => { method(l, 'bot_token').secret_fields = []; }],
    ['a config field with an unknown keyword', (l) => { (l.entry.config_schema.properties['team_id'] as Record<string, Json>)['secret'] = true; }],
    ['a config_schema allowing extra properties', (l) => { mutable(l.entry)['config_schema'] = { ...l.entry.config_schema, additionalProperties: true }; }],
    ['a date-time deprecation date', (l) => { l.entry.status = 'deprecated'; mutable(l.entry)['deprecation'] = { deprecated_at: '2024-01-01T00:00:00Z', sunset_at: null, replacement_id: null, reason: 'because reasons' }; }],
  ])('schema: %s', (_label, plant) => {
    const bad = find('slack');
    expect(schemaProblems([bad])).toEqual([]);
    plant(bad);
    expect(schemaProblems([bad])).not.toEqual([]);
  });

  it('schema: a model provider with the wrong category', () => {
    const bad = find('openai');
    bad.entry.category = 'custom';
    bad.entry.categories = ['custom'];
    expect(schemaProblems([bad])).not.toEqual([]);
  });

  it('ids unique across files', () => {
    const bad = find('slack');
    bad.file = 'custom.json';
    expect(uniqueIdProblems(withPlanted(bad))).toEqual([expect.stringContaining('slack: duplicate id')]);
  });

  it('file and categories agree with category', () => {
    const bad = find('slack');
    bad.entry.categories = ['productivity'];
    bad.file = 'productivity.json';
    expect(fileCategoryProblems(replacing(bad))).toHaveLength(2);
  });

  it('default_auth_method_id names a method', () => {
    const bad = find('slack');
    bad.entry.default_auth_method_id = 'api_token';
    expect(authMethodProblems(replacing(bad))).toEqual([expect.stringContaining('default_auth_method_id api_token')]);
  });

  it('auth method ids unique per entry', () => {
    const bad = find('slack');
    bad.entry.auth_methods.push(clone(method(bad, 'bot_token')));
    expect(authMethodProblems(replacing(bad))).toEqual([expect.stringContaining('duplicate auth method ids bot_token')]);
  });

  it('secret_fields are fields', () => {
    const bad = find('slack');
    method(bad, 'bot_token').secret_fields.push('signing_secret');
    expect(authMethodProblems(replacing(bad))).toEqual([expect.stringContaining('secret field signing_secret')]);
  });

  it('required_config names config fields', () => {
    const bad = find('azure-openai');
    method(bad, 'client_credentials').required_config = ['tenant'];
    expect(authMethodProblems(replacing(bad))).toEqual([expect.stringContaining('required_config tenant')]);
  });

  it('aws_sigv4 verification has AWS key fields', () => {
    const bad = find('amazon-s3');
    delete method(bad, 'access_key').fields.properties['access_key_id'];
    expect(authMethodProblems(replacing(bad))).toEqual([expect.stringContaining('needs credential field access_key_id')]);
  });

  it('config_schema compiles as a JSON Schema', () => {
    const bad = find('postgresql');
    bad.entry.config_schema.required.push('password'); // required but not defined: strictRequired
    expect(embeddedSchemaProblems(replacing(bad))).toEqual([expect.stringContaining('postgresql config_schema: not a valid JSON Schema')]);
  });

  it('fields compile as a JSON Schema', () => {
    const bad = find('openai');
    (method(bad, 'api_key').fields.properties['api_key'] as Record<string, Json>)['pattern'] = '^sk-(';
    expect(embeddedSchemaProblems(replacing(bad))).toEqual([expect.stringContaining('openai/api_key fields: not a valid JSON Schema')]);
  });

  it('defaults satisfy their own schema', () => {
    const bad = find('postgresql');
    (bad.entry.config_schema.properties['port'] as Record<string, Json>)['default'] = 70000;
    expect(embeddedSchemaProblems(replacing(bad))).toEqual([expect.stringContaining('postgresql config_schema.port: default 70000')]);
  });

  it.each<[string, string, string, (m: AuthMethod) => void, string]>([
    ['unknown credentials field', 'openai', 'api_key', (m) => { m.verification!.headers['Authorization'] = 'Bearer {{credentials.apikey}}'; }, '{{credentials.apikey}} is not a field'],
    ['unknown config field in url', 'ollama', 'none', (m) => { m.verification!.url = '{{config.baseurl}}/api/tags'; }, '{{config.baseurl}} is not a config_schema property'],
    ['config field neither required nor defaulted', 'sentry', 'auth_token', (m) => { m.verification!.url = 'https://sentry.io/api/0/projects/{{config.project}}/'; }, 'is not a config_schema property'],
    ['malformed placeholder', 'slack', 'bot_token', (m) => { m.verification!.headers['Authorization'] = 'Bearer {{ credentials.bot-token }}'; }, 'malformed placeholder'],
    ['unterminated placeholder', 'slack', 'bot_token', (m) => { m.verification!.headers['Authorization'] = 'Bearer {{credentials.bot_token'; }, 'unterminated placeholder'],
    ['credentials in an oauth2 URL', 'zendesk', 'oauth2', (m) => { m.oauth2!.token_url = 'https://{{credentials.access_token}}.zendesk.com/oauth/tokens'; }, 'credentials cannot appear here'],
    ['token placeholder outside oauth2', 'github', 'personal_access_token', (m) => { m.verification!.headers['Authorization'] = 'Bearer {{token.access_token}}'; }, 'is only {{token.access_token}}'],
    ['basic_auth referencing a missing field', 'jira', 'api_token', (m) => { m.verification!.basic_auth!.username = '{{credentials.username}}'; }, '{{credentials.username}} is not a field'],
  ])('placeholders: %s', (_label, id, methodId, plant, message) => {
    const bad = find(id);
    plant(method(bad, methodId));
    expect(placeholderProblems(replacing(bad))).toEqual([expect.stringContaining(message)]);
  });

  it('placeholders: a config field that is optional without default', () => {
    const bad = find('azure-openai');
    delete method(bad, 'client_credentials').required_config;
    expect(placeholderProblems(replacing(bad))).toEqual([expect.stringContaining('{{config.tenant_id}} is neither required')]);
  });

  it('deprecation replacement exists and is not deprecated', () => {
    const bad = find('jira-server');
    bad.entry.deprecation = { ...bad.entry.deprecation, replacement_id: 'jira-cloud' };
    expect(deprecationProblems(replacing(bad))).toEqual(['jira-server: replacement_id jira-cloud is not in the catalog']);
    bad.entry.deprecation = { ...bad.entry.deprecation, replacement_id: 'mcp-server-sse' };
    expect(deprecationProblems(replacing(bad))).toEqual([expect.stringContaining('is itself deprecated')]);
  });

  it.each<[string, (c: Located[]) => Located[], string]>([
    ['fewer than 60 entries', (c) => c.slice(0, 59), 'at least 60 expected'],
    ['a required id missing', (c) => c.filter((l) => l.entry.id !== 'trello'), 'missing required entry trello'],
    ['a required id in the wrong category', (c) => c.map((l) => (l.entry.id === 'zendesk' ? { ...l, entry: { ...l.entry, category: 'crm' } } : l)), 'zendesk: category crm, expected support'],
    ['a model provider not typed model', (c) => c.map((l) => (l.entry.id === 'groq' ? { ...l, entry: { ...l.entry, type: 'integration' as const } } : l)), 'groq: model provider must have type'],
    ['a vector store not typed vector_store', (c) => c.map((l) => (l.entry.id === 'chroma' ? { ...l, entry: { ...l.entry, type: 'integration' as const } } : l)), 'chroma: must have type vector_store'],
    ['a self-hosted entry without a required base_url', (c) => c.map((l) => (l.entry.id === 'vllm' ? { ...l, entry: { ...l.entry, config_schema: { ...l.entry.config_schema, required: [] } } } : l)), 'vllm: self-hosted'],
    ['too few beta entries', (c) => c.map((l) => (l.entry.status === 'beta' ? { ...l, entry: { ...l.entry, status: 'active' as const } } : l)), 'beta entries, at least 4'],
    ['too few deprecated entries', (c) => c.filter((l) => l.entry.id !== 'jira-server' && l.entry.id !== 'mcp-server-sse' && l.entry.id !== 'google-analytics-universal'), 'deprecated entries, at least 3'],
    ['too few maintenance entries', (c) => c.map((l) => (l.entry.id === 'bitbucket' ? { ...l, entry: { ...l.entry, status: 'active' as const } } : l)), 'maintenance entries, at least 2'],
    ['rest-api without basic auth', (c) => c.map((l) => (l.entry.id === 'rest-api' ? { ...l, entry: { ...l.entry, auth_methods: l.entry.auth_methods.filter((m) => m.type !== 'basic') } } : l)), 'rest-api: no basic method'],
  ])('coverage: %s', (_label, plant, message) => {
    expect(coverageProblems(plant(clone(catalog)))).toEqual(expect.arrayContaining([expect.stringContaining(message)]));
  });
});
