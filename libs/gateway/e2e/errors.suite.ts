import { request, type IncomingHttpHeaders } from 'node:http';
import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

export interface RawReply<T = any> {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly body: T;
}

/**
 * One HTTP/1.1 request over its own connection with exactly the bytes given: invalid UTF-8,
 * malformed percent-encoding, oversized headers, which fetch would refuse or normalise.
 *
 * `holdBodyMs`: send the headers, and the body only if no answer came within that time. A
 * server that refuses a request from its headers (413 from Content-Length) answers and closes
 * without reading the body; a client still uploading it then fails with EPIPE or ECONNRESET
 * depending on timing. Holding the body makes that exchange deterministic, and a server that
 * does wait for the body still gets it. Write errors after the answer arrived are ignored:
 * the answer is what is checked.
 */
export function rawCall<T = any>(
  lore: LoreUnderTest,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: Buffer; holdBodyMs?: number } = {},
): Promise<RawReply<T>> {
  const url = new URL(lore.url);
  return new Promise<RawReply<T>>((resolve, reject) => {
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const outgoing = request({ host: url.hostname, port: url.port, method, path, headers: options.headers, agent: false }, (response) => {
      answered = true;
      clearTimeout(timer);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          body = text;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: body as T });
        outgoing.destroy();
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (answered && (error.code === 'EPIPE' || error.code === 'ECONNRESET')) return;
      clearTimeout(timer);
      reject(error);
    });
    if (options.body === undefined) outgoing.end();
    else if (options.holdBodyMs === undefined) outgoing.end(options.body);
    else {
      outgoing.flushHeaders();
      timer = setTimeout(() => {
        if (!answered) outgoing.end(options.body);
      }, options.holdBodyMs);
    }
  });
}

const nested = (levels: number, inner: string): string => '{"a":'.repeat(levels) + inner + '}'.repeat(levels);

/** Every error leaves the gateway in the documented shapes, whatever layer produced it. */
export function describeErrors(lore: () => LoreUnderTest): void {
  describe('error shapes', () => {
    async function user(): Promise<{ token: string; auth: Record<string, string> }> {
      const token = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: unique('ws') });
      return { token, auth: { authorization: `Bearer ${token}` } };
    }

    it('answers deeply nested JSON with 422 json_invalid at the body, not a 500', async () => {
      const { token } = await user();
      const bodies = [
        // About 4,100 levels in an 8 KB body; 2,700 levels of objects within the metadata size limit;
        // 10,000 levels (20 KB), where validating the metadata overflowed the stack (500).
        `{"memory":"m","metadata":{"a":${'['.repeat(4_100)}${']'.repeat(4_100)}}}`,
        `{"memory":"m","metadata":${nested(2_700, '1')}}`,
        `{"memory":"m","metadata":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
      ];
      for (const rawBody of bodies) {
        const reply = await call(lore(), 'POST', '/api/v1/memories', { token, rawBody });
        expect({ size: rawBody.length, status: reply.status }).toEqual({ size: rawBody.length, status: 422 });
        expect(reply.body.detail).toEqual([{ loc: ['body', expect.any(Number)], msg: expect.stringMatching(/^JSON decode error/), type: 'json_invalid' }]);
      }
    });

    it('accepts metadata nested up to the documented limit (64 levels, the body being level 1)', async () => {
      const { token } = await user();
      const atLimit = await call(lore(), 'POST', '/api/v1/memories', { token, rawBody: `{"memory":"m","metadata":${nested(62, '{}')}}` });
      expect(atLimit.status).toBe(201);
      const beyond = await call(lore(), 'POST', '/api/v1/memories', { token, rawBody: `{"memory":"m","metadata":${nested(63, '{}')}}` });
      expect(beyond.status).toBe(422);
      expect(beyond.body.detail[0]).toMatchObject({ loc: ['body', expect.any(Number)], type: 'json_invalid' });
    });

    it('refuses numbers it could not keep exactly and lone surrogates with 422 at the field, in every JSON field', async () => {
      const { token } = await user();
      const refused = async (path: string, rawBody: string): Promise<unknown> => {
        const reply = await call(lore(), 'POST', path, { token, rawBody });
        expect({ rawBody, status: reply.status }).toEqual({ rawBody, status: 422 });
        return reply.body.detail;
      };
      // 2^53 + 1 would arrive as 2^53; 1e400 as Infinity (stored as null).
      expect(await refused('/api/v1/memories', '{"memory":"m","metadata":{"n":9007199254740993}}')).toEqual([
        { loc: ['body', 'metadata', 'n'], msg: expect.stringMatching(/^Integer out of range/), type: 'int_precision' },
      ]);
      expect(await refused('/api/v1/memories', '{"memory":"m","metadata":{"a":[1,-9007199254740993]}}')).toMatchObject([{ loc: ['body', 'metadata', 'a', 1] }]);
      expect(await refused('/api/v1/memories', '{"memory":"m","metadata":{"big":12345678901234567890123}}')).toMatchObject([{ loc: ['body', 'metadata', 'big'], type: 'int_precision' }]);
      expect(await refused('/api/v1/memories', '{"memory":"m","metadata":{"x":1e400}}')).toEqual([{ loc: ['body', 'metadata', 'x'], msg: expect.stringMatching(/finite/), type: 'finite_number' }]);
      expect(await refused('/api/v1/memories', '{"memory":"m","metadata":{"x":1e-400}}')).toEqual([{ loc: ['body', 'metadata', 'x'], msg: expect.stringMatching(/round to zero/), type: 'finite_number' }]);
      expect(await refused('/api/v1/memories', '{"memory":"m\\ud800"}')).toEqual([{ loc: ['body', 'memory'], msg: expect.stringMatching(/surrogate/), type: 'string_unicode' }]);
      expect(await refused('/api/v1/memories', '{"memory":"m","metadata":{"\\udc00k":1}}')).toMatchObject([{ loc: ['body', 'metadata', '\udc00k'], type: 'string_unicode' }]);
      const conversation = await call(lore(), 'POST', '/api/v1/conversations', { token, body: { title: 't' } });
      expect(conversation.status).toBe(201);
      const messages = `/api/v1/conversations/${conversation.body.id}/messages`;
      expect(await refused(messages, '{"content":"hi","meta_data":{"n":-9007199254740992}}')).toMatchObject([{ loc: ['body', 'meta_data', 'n'], type: 'int_precision' }]);
      expect(await refused(messages, '{"content":"hi","role":"assistant","tool_calls":[{"id":"\\ud83d"}]}')).toMatchObject([{ loc: ['body', 'tool_calls', 0, 'id'], type: 'string_unicode' }]);
      expect(await refused('/api/v1/conversations', '{"title":"\\udfff"}')).toMatchObject([{ loc: ['body', 'title'], type: 'string_unicode' }]);

      expect(await refused('/api/v1/conversations', '{"title":"t","metadata":{"n":-1.5e999}}')).toMatchObject([{ loc: ['body', 'metadata', 'n'], type: 'finite_number' }]);
      // What can be kept is kept: the largest safe integers, floats (with an exponent too), a surrogate pair.
      const kept = await call(lore(), 'POST', '/api/v1/memories', {
        token,
        rawBody: '{"memory":"tea \\ud83c\\udf75","metadata":{"max":9007199254740991,"min":-9007199254740991,"f":1.5e300,"g":0.1,"s":"9007199254740993"}}',
      });
      expect(kept.status).toBe(201);
      const read = await call(lore(), 'GET', `/api/v1/memories/${kept.body.memory_id}`, { token });
      expect(read.body).toMatchObject({ memory: 'tea 🍵', metadata: { max: 9007199254740991, min: -9007199254740991, f: 1.5e300, g: 0.1, s: '9007199254740993' } });
    });

    it('answers invalid UTF-8 in a JSON body with 422 json_invalid, not a 400 about Content-Length', async () => {
      const { auth } = await user();
      const body = Buffer.concat([Buffer.from('{"memory":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
      const reply = await rawCall(lore(), 'POST', '/api/v1/memories', { headers: { ...auth, 'content-type': 'application/json', 'content-length': String(body.length) }, body });
      expect(reply.status).toBe(422);
      expect(reply.body).toEqual({ detail: [{ loc: ['body', 11], msg: 'JSON decode error', type: 'json_invalid' }] });
    });

    it('lets path parameters over 100 characters reach validation (422), not a 414 in Fastify’s shape', async () => {
      const { token } = await user();
      const reply = await call(lore(), 'GET', `/api/v1/memories/${'m'.repeat(150)}`, { token });
      expect(reply.status).toBe(422);
      expect(reply.body.detail[0]).toMatchObject({ loc: ['path', 'memory_id'], type: 'string_too_long' });
    });

    it('answers malformed percent-encoding with 400 in the detail shape', async () => {
      const { auth } = await user();
      const reply = await rawCall(lore(), 'GET', '/api/v1/memories/%E0%A4%A', { headers: auth });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ detail: expect.any(String) });
      expect(reply.headers['x-request-id']).toEqual(expect.any(String));
    });

    it('answers oversized headers with 431 in the detail shape', async () => {
      const reply = await rawCall(lore(), 'GET', '/health', { headers: { 'x-padding': 'p'.repeat(17 * 1024) } });
      expect(reply.status).toBe(431);
      expect(reply.body).toEqual({ detail: expect.any(String) });
    });

    it('answers a request Node cannot parse (Content-Length with chunked encoding) with 400 in the detail shape', async () => {
      const reply = await rawCall(lore(), 'GET', '/health', { headers: { 'content-length': '1', 'transfer-encoding': 'chunked' } });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ detail: expect.any(String) });
    });

    it('refuses __proto__ keys in a JSON body with 422 json_invalid that says why', async () => {
      const { token } = await user();
      const reply = await call(lore(), 'POST', '/api/v1/memories', { token, rawBody: '{"memory":"m","metadata":{"__proto__":{"admin":true}}}' });
      expect(reply.status).toBe(422);
      expect(reply.body.detail[0]).toMatchObject({ loc: ['body', 26], type: 'json_invalid', msg: expect.stringContaining('__proto__') });
    });

    it('answers undeclared methods on known paths with 405 and Allow; unknown paths stay 404', async () => {
      const { token } = await user();
      const put = await call(lore(), 'PUT', '/api/v1/memories', { token, body: {} });
      expect(put.status).toBe(405);
      expect(put.body).toEqual({ detail: 'Method Not Allowed' });
      expect(put.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'POST']);

      const patch = await call(lore(), 'PATCH', '/health');
      expect(patch.status).toBe(405);
      expect(patch.body).toEqual({ detail: 'Method Not Allowed' });
      expect(patch.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD']);

      // Methods that carry a body (QUERY) get 405 before anything reads one.
      const query = await rawCall(lore(), 'QUERY', '/api/v1/memories/mem_x/history?user_id=u');
      expect(query.status).toBe(405);
      expect(query.body).toEqual({ detail: 'Method Not Allowed' });

      // Parameterised paths too, with or without a query string or trailing slash.
      const post = await call(lore(), 'POST', '/api/v1/memories/mem_x/history/?user_id=u');
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD']);

      for (const [method, path] of [
        ['GET', '/api/v1/nothing-here'],
        ['PUT', '/api/v1/nothing-here'],
        ['GET', '/api/v1/memories/a/b/c'],
      ] as const) {
        const reply = await call(lore(), method, path);
        expect({ method, path, status: reply.status, body: reply.body as unknown }).toEqual({ method, path, status: 404, body: { detail: 'Not Found' } });
      }
    });

    it('answers multipart/form-data to a route that takes JSON with 415 in the detail shape, like any type it does not read (only upload routes read it)', async () => {
      const { auth } = await user();
      const boundary = 'lore-e2e-boundary';
      const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="memory"\r\n\r\ntea\r\n--${boundary}--\r\n`);
      const reply = await rawCall(lore(), 'POST', '/api/v1/memories', { headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) }, body });
      // The same answer as any other type the route does not read.
      const xml = await rawCall(lore(), 'POST', '/api/v1/memories', { headers: { ...auth, 'content-type': 'application/xml', 'content-length': '6' }, body: Buffer.from('<tea/>') });
      expect({ status: reply.status, body: reply.body as unknown }).toEqual({ status: 415, body: { detail: expect.any(String) } });
      expect(reply.body).toEqual(xml.body);
      expect(reply.headers['x-request-id']).toEqual(expect.any(String));
    });

    it('treats an empty JSON body as no body: DELETE succeeds, a POST that needs one gets 422 missing', async () => {
      const { token, auth } = await user();
      const created = await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory: 'to delete' } });
      expect(created.status).toBe(201);
      const json = { ...auth, 'content-type': 'application/json', 'content-length': '0' };
      const deleted = await rawCall(lore(), 'DELETE', `/api/v1/memories/${String(created.body.memory_id)}`, { headers: json, body: Buffer.alloc(0) });
      expect(deleted.status).toBe(200);
      const post = await rawCall(lore(), 'POST', '/api/v1/memories', { headers: json, body: Buffer.alloc(0) });
      expect(post.status).toBe(422);
      expect(post.body).toEqual({ detail: [{ loc: ['body', 'memory'], msg: 'Field required', type: 'missing' }] });
    });

    it('refuses a JSON null body where an object is expected, even when every field is optional', async () => {
      const { auth } = await user();
      const json = { ...auth, 'content-type': 'application/json' };
      const refused = await rawCall(lore(), 'POST', '/api/v1/conversations', { headers: json, body: Buffer.from('null') });
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({ detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }] });
      // No body at all is no body: the same route creates a conversation with its defaults.
      const created = await rawCall(lore(), 'POST', '/api/v1/conversations', { headers: auth });
      expect(created.status).toBe(201);
    });
  });
}
