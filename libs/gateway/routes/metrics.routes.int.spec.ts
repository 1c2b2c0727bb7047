import Fastify, { type FastifyInstance } from 'fastify';
import { observeRequests } from '../http/request-telemetry';
import { registerMetricsRoute } from './metrics.routes';

describe('GET /metrics on the gateway', () => {
  const apps: FastifyInstance[] = [];
  const app = (token: string | undefined): FastifyInstance => {
    const created = Fastify();
    observeRequests(created);
    registerMetricsRoute(created, token);
    apps.push(created);
    return created;
  };
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });

  it('asks for METRICS_TOKEN as a bearer token when it is set', async () => {
    const closed = app('scrape-secret');
    const refused = await closed.inject({ method: 'GET', url: '/metrics' });
    expect({ status: refused.statusCode, body: refused.json(), challenge: refused.headers['www-authenticate'] }).toEqual({ status: 401, body: { detail: 'Not authenticated' }, challenge: 'Bearer' });
    expect((await closed.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-secreT' } })).statusCode).toBe(401);
    const allowed = await closed.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-secret' } });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(allowed.body).toContain('# TYPE lore_http_request_duration_seconds histogram');
  });

  it('is open without a token, and labels a request no route matched as (unmatched), never by its URL', async () => {
    const open = app(undefined);
    expect((await open.inject({ method: 'GET', url: '/no/such/path-4711' })).statusCode).toBe(404);
    const scraped = await open.inject({ method: 'GET', url: '/metrics' });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.body).toMatch(/lore_http_request_duration_seconds_count\{method="GET",route="\(unmatched\)",status="404"\} [1-9]/);
    expect(scraped.body).not.toContain('path-4711');
  });
});
