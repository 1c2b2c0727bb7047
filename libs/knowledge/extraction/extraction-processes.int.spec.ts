import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEFAULT_EXTRACTION_LIMITS } from './extraction-limits';
import { ExtractionProcesses, ReaderEnded } from './extraction-processes';
import type { ExtractionTask } from './extraction.worker';

// Stand-in readers speaking the reader process's protocol (extraction.worker.ts), each doing what
// no real file can be relied on to make the real reader do.
const READERS = {
  // Fills one array until V8's heap is full: in a process of its own, V8 then aborts that process
  // (SIGABRT), as it does on any heap exhaustion outside a worker thread.
  exhausting: `process.on('message', (task) => {
    process.send({ id: task.id, started: true });
    const grow = [];
    for (;;) grow.push(grow.length);
  });`,
  // Answers with the names of its environment's variables.
  environment: `process.on('message', (task) => {
    process.send({ id: task.id, started: true });
    process.send({ id: task.id, outcome: { ok: true, extracted: { text: Object.keys(process.env).join(','), pages: null } } });
  });`,
  // Never answers.
  stuck: `process.on('message', (task) => process.send({ id: task.id, started: true }));`,
};

const task = (id: number): ExtractionTask => ({ id, fileName: 'f.txt', mimeType: null, bytes: new Uint8Array([104, 105]), limits: DEFAULT_EXTRACTION_LIMITS });

describe('ExtractionProcesses', () => {
  let dir: string;
  const scripts: Record<keyof typeof READERS, string> = { exhausting: '', environment: '', stuck: '' };
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-readers-'));
    for (const [name, source] of Object.entries(READERS)) {
      const script = join(dir, `${name}.cjs`);
      writeFileSync(script, `${source}\nprocess.on('disconnect', () => process.exit(0));\n`);
      scripts[name as keyof typeof READERS] = script;
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends only the reader whose heap runs out, and says so; the next file gets a new reader', async () => {
    const started: number[] = [];
    const readers = new ExtractionProcesses({ script: scripts.exhausting, maxMemoryMb: 32, onStart: (id) => started.push(id) });
    try {
      for (const id of [1, 2]) {
        const error: unknown = await readers.run(task(id), new AbortController().signal).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ReaderEnded);
        expect((error as ReaderEnded).reason).toBe('memory');
      }
      expect(started).toEqual([1, 2]);
    } finally {
      await readers.close();
    }
  }, 60_000);

  it('starts readers without the service environment, so no secret in it reaches a parser', async () => {
    process.env['LORE_TEST_SECRET'] = 'not for readers';
    const readers = new ExtractionProcesses({ script: scripts.environment, maxMemoryMb: 64, onStart: () => undefined });
    try {
      const outcome = await readers.run(task(1), new AbortController().signal);
      expect(outcome.ok && outcome.extracted.text.split(',')).not.toContain('LORE_TEST_SECRET');
    } finally {
      delete process.env['LORE_TEST_SECRET'];
      await readers.close();
    }
  });

  it('kills a reader at its deadline and serves the next file with a new one', async () => {
    const readers = new ExtractionProcesses({ script: scripts.stuck, maxMemoryMb: 64, onStart: () => undefined });
    try {
      const abort = new AbortController();
      const late = readers.run(task(1), abort.signal).catch((e: unknown) => e);
      setTimeout(() => abort.abort(), 200);
      const error = await late;
      expect(error).toBeInstanceOf(ReaderEnded);
      expect((error as ReaderEnded).reason).toBe('deadline');
      const again = new AbortController();
      const next = readers.run(task(2), again.signal).catch((e: unknown) => e);
      setTimeout(() => again.abort(), 200);
      expect(((await next) as ReaderEnded).reason).toBe('deadline');
    } finally {
      await readers.close();
    }
  });
});
