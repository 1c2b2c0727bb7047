import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

/** The integration catalog (SPEC §4.6) and the provider models (open, SPEC §5.2). */
export function describeIntegrations(lore: () => LoreUnderTest): void {
  describe('integrations and provider models', () => {
    let token: string;
    beforeAll(async () => {
      token = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: unique('ws') });
    });
    const list = async (query = '') => {
      const reply = await call(lore(), 'GET', `/integrations${query}`, { token });
      expect(reply.status).toBe(200);
      return reply.body as Array<{ id: string; type: string; status: string; category: string; categories: string[]; tags: string[]; default_auth_method_id: string; auth_methods: Array<{ id: string }> }>;
    };

    it('lists at least 60 definitions, the same under /api/v1, each with its default auth method', async () => {
      const all = await list();
      expect(all.length).toBeGreaterThanOrEqual(60);
      expect((await call(lore(), 'GET', '/api/v1/integrations', { token })).body).toEqual(all);
      for (const entry of all) expect(entry.auth_methods.map((m) => m.id)).toContain(entry.default_auth_method_id);
      expect(new Set(all.map((e) => e.status))).toEqual(new Set(['active', 'beta', 'deprecated', 'maintenance']));
    });

    it('filters by type, status, category and tags (all must match), and all means every type', async () => {
      const all = await list();
      for (const type of ['integration', 'model', 'vector_store']) {
        const some = await list(`?type=${type}`);
        expect(some.length).toBeGreaterThan(0);
        expect(some.every((e) => e.type === type)).toBe(true);
      }
      expect((await list('?type=all')).length).toBe(all.length);
      const deprecated = await list('?status=deprecated');
      expect(deprecated.length).toBeGreaterThan(0);
      expect(deprecated.every((e) => e.status === 'deprecated')).toBe(true);
      const communication = await list('?category=communication');
      expect(communication.map((e) => e.id)).toEqual(expect.arrayContaining(['slack', 'discord']));
      expect(communication.every((e) => e.categories.includes('communication'))).toBe(true);
      const tagged = all.find((e) => e.tags.length >= 2);
      const both = await list(`?tags=${tagged?.tags.slice(0, 2).join(',')}`);
      expect(both.map((e) => e.id)).toContain(tagged?.id);
      expect(both.every((e) => tagged?.tags.slice(0, 2).every((t) => e.tags.includes(t)))).toBe(true);
      expect(await list('?category=no-such-category')).toEqual([]);
      expect((await call(lore(), 'GET', '/integrations?status=retired', { token })).status).toBe(422);
      expect((await call(lore(), 'GET', '/integrations?type=robot', { token })).status).toBe(422);
    });

    it('gets one definition, 404 for an unknown one, and needs a credential', async () => {
      const openai = await call(lore(), 'GET', '/api/v1/integrations/openai', { token });
      expect(openai.status).toBe(200);
      expect(openai.body).toMatchObject({ id: 'openai', type: 'model', integration_type: 'model' });
      expect((await call(lore(), 'GET', '/api/v1/integrations/no-such-thing', { token })).status).toBe(404);
      expect((await call(lore(), 'GET', '/integrations')).status).toBe(401);
    });

    it('lists a provider\'s models without authentication, filtered by model type', async () => {
      const all = await call(lore(), 'GET', '/api/v1/integrations/providers/openai/models');
      expect(all.status).toBe(200);
      const types = new Set((all.body as Array<{ model_type: string }>).map((m) => m.model_type));
      expect([...types]).toEqual(expect.arrayContaining(['chat', 'embedding']));
      const embeddings = await call(lore(), 'GET', '/api/v1/integrations/providers/openai/models?model_type=embedding');
      expect(embeddings.body.length).toBeGreaterThan(0);
      expect(embeddings.body.every((m: { model_type: string; provider_id: string }) => m.model_type === 'embedding' && m.provider_id === 'openai')).toBe(true);
      const small = embeddings.body.find((m: { id: string }) => m.id === 'text-embedding-3-small');
      expect(small).toMatchObject({ specifications: { embedding_dimensions: 1536 }, pricing: { currency: 'USD', unit: '1M tokens' } });
      expect((await call(lore(), 'GET', '/api/v1/integrations/providers/no-such-provider/models')).status).toBe(404);
    });

    it('has chat and embedding models for at least 10 providers of the catalog', async () => {
      const providers = (await list('?type=model')).map((e) => e.id);
      let both = 0;
      for (const provider of providers) {
        const reply = await call(lore(), 'GET', `/api/v1/integrations/providers/${provider}/models`);
        expect(reply.status).toBe(200);
        expect(reply.body.length).toBeGreaterThan(0);
        const types = new Set((reply.body as Array<{ model_type: string }>).map((m) => m.model_type));
        if (types.has('chat') && types.has('embedding')) both++;
      }
      expect(both).toBeGreaterThanOrEqual(10);
    });
  });
}
