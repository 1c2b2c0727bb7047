// The bare baseline: Fastify + better-sqlite3, one durable insert per request (WAL,
// synchronous=FULL, the same durability Lore's event store gives an append).
import Fastify from 'fastify';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';

const db = new Database(process.env.BASELINE_DB);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('CREATE TABLE IF NOT EXISTS items (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO items (id, body, created_at) VALUES (?, ?, ?)');

const app = Fastify({ logger: false });
app.post('/items', async (request, reply) => {
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  insert.run(id, JSON.stringify(request.body), createdAt);
  return reply.code(201).send({ id, created_at: createdAt, ...request.body });
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
