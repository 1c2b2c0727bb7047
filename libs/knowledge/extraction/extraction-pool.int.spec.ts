import { performance } from 'node:perf_hooks';

import { AppError } from '@lore/platform/kernel';
import { extractionFiles, extractionReadersEnded } from '@lore/platform/telemetry';

import { DEFAULT_EXTRACTION_LIMITS, type ExtractionLimits } from './extraction-limits';
import { ExtractionPool, type ExtractionPoolOptions } from './extraction-pool';
import { deepHtml, deepJson, docx, pdf, utf8 } from './hostile-files.fixture';

/** The workspace the files are uploaded to (the fairness across workspaces has its own tests). */
const WS = 'ws_extract';

/**
 * The pool as the gateway uses it: real reader processes running the bundled worker. Every
 * hostile file gets a 422 naming its limit within seconds; normal files of each format still
 * read; and the event loop of this thread keeps turning meanwhile.
 */
const OPTIONS: ExtractionPoolOptions = { workers: 2, queue: 4, perWorkspace: 2, timeoutMs: 10_000, maxMemoryMb: 256, limits: DEFAULT_EXTRACTION_LIMITS };

async function refusal(pool: ExtractionPool, filename: string, bytes: Uint8Array): Promise<{ msg: string; type: string; ms: number }> {
  const started = performance.now();
  const error: unknown = await pool.extract(bytes, { fileName: filename, workspaceId: WS }).then(
    () => new Error(`${filename} was read`),
    (e: unknown) => e,
  );
  const ms = performance.now() - started;
  expect(error).toBeInstanceOf(AppError);
  const issue = (error as AppError).issues[0];
  expect((error as AppError).code).toBe('validation');
  expect(issue?.loc).toEqual(['file']);
  return { msg: issue?.msg ?? '', type: issue?.type ?? '', ms };
}

/** A counter's value for these labels now. */
async function count(counter: typeof extractionFiles | typeof extractionReadersEnded, labels: Record<string, string>): Promise<number> {
  const { values } = await counter.get();
  return values.find((value) => Object.entries(labels).every(([name, label]) => (value.labels as Record<string, unknown>)[name] === label))?.value ?? 0;
}

describe('ExtractionPool', () => {
  let pool: ExtractionPool;
  beforeAll(async () => {
    pool = new ExtractionPool(OPTIONS);
    await pool.extract(utf8('warm up'), { fileName: 'warm.html', workspaceId: WS }); // starts a reader process and loads the readers
  }, 60_000);
  afterAll(() => pool.close());

  it('reads a normal file of every format in a reader process', async () => {
    expect((await pool.extract(utf8('<html><head><title>T</title></head><body><div><p>Hello <b>there</b></p></div></body></html>'), { fileName: 'a.html', workspaceId: WS })).text).toBe('Hello there');
    expect((await pool.extract(deepHtml(500), { fileName: 'a.html', workspaceId: WS })).text).toBe('deep');
    expect((await pool.extract(utf8('{"a":{"b":[1,"x"]}}'), { fileName: 'a.json', workspaceId: WS })).text).toBe('a.b[0]: 1\na.b[1]: x');
    expect((await pool.extract(deepJson(500), { fileName: 'a.json', workspaceId: WS })).text).toBe(`${'[0]'.repeat(500)}: 1`);
    expect((await pool.extract(utf8('name,city\nAda,London\n'), { fileName: 'a.csv', workspaceId: WS })).text).toBe('name: Ada; city: London');
    const word = await pool.extract(docx(['First paragraph.', 'Second one.']), { fileName: 'a.docx', workspaceId: WS });
    expect(word.text).toBe('First paragraph.\n\nSecond one.');
    expect(word.format).toBe('docx');
    const paper = await pool.extract(pdf(['Page one', 'Page two']), { fileName: 'a.pdf', workspaceId: WS });
    expect(paper).toMatchObject({ text: 'Page one\n\nPage two', pages: 2 });
  });

  it('refuses a PDF with more pages than the limit, before reading them', async () => {
    const short = new ExtractionPool({ ...OPTIONS, workers: 1, limits: { ...DEFAULT_EXTRACTION_LIMITS, maxPdfPages: 2 } });
    try {
      const { msg } = await refusal(short, 'long.pdf', pdf(['One', 'Two', 'Three']));
      expect(msg).toBe('"long.pdf" has more than 2 pages (KNOWLEDGE_EXTRACT_MAX_PDF_PAGES)');
    } finally {
      await short.close();
    }
  });

  it('answers an uploader error (invalid JSON) as the same 422 the reader raises', async () => {
    const { msg, type } = await refusal(pool, 'bad.json', utf8('{"a": }'));
    expect(msg).toMatch(/^"bad.json" is not valid JSON/);
    expect(type).toBe('value_error');
  });

  it.each([3_000, 100_000])('refuses HTML nested %i levels within seconds, naming the limit', async (depth) => {
    const { msg, type, ms } = await refusal(pool, 'deep.html', deepHtml(depth));
    expect(msg).toBe('"deep.html" nests its HTML deeper than 512 levels (KNOWLEDGE_EXTRACT_MAX_DEPTH)');
    expect(type).toBe('limit_exceeded');
    expect(ms).toBeLessThan(3_000);
  });

  it('refuses JSON nested deeper than the limit', async () => {
    const { msg } = await refusal(pool, 'deep.json', deepJson(100_000));
    expect(msg).toBe('"deep.json" nests JSON arrays and objects deeper than 512 levels (KNOWLEDGE_EXTRACT_MAX_DEPTH)');
  });

  it('refuses a DOCX that expands to 100 MB from its ZIP directory, before inflating it', async () => {
    const bomb = docx(['Hello'], { padding: 100 * 1024 * 1024 });
    expect(bomb.byteLength).toBeLessThan(200 * 1024);
    const { msg, ms } = await refusal(pool, 'bomb.docx', bomb);
    expect(msg).toBe(`"bomb.docx" expands to more than ${64 * 1024 * 1024} bytes when unzipped (KNOWLEDGE_EXTRACT_MAX_UNZIPPED_BYTES)`);
    expect(ms).toBeLessThan(2_000);
  }, 30_000);

  it('refuses a DOCX entry compressed beyond the ratio, and one whose directory understates its size', async () => {
    const dense = await refusal(pool, 'dense.docx', docx(['Hello'], { padding: 20 * 1024 * 1024 }));
    expect(dense.msg).toBe('"dense.docx" has an entry compressed more than 100 times (word/document.xml) (KNOWLEDGE_EXTRACT_MAX_ZIP_RATIO)');
    const liar = await refusal(pool, 'liar.docx', docx(['Hello'], { padding: 50 * 1024 * 1024, declaredSize: 1000 }));
    expect(liar.msg).toMatch(/^"liar.docx" could not be read as a DOCX document: word\/document.xml expands to a size other than its ZIP directory declares/);
  }, 30_000);

  it('refuses CSV with too many records or fields, and text larger than the limit', async () => {
    expect((await refusal(pool, 'rows.csv', utf8('a\n'.repeat(1_000_001)))).msg).toBe('"rows.csv" has more than 1000000 CSV records (KNOWLEDGE_EXTRACT_MAX_CSV_ROWS)');
    expect((await refusal(pool, 'wide.csv', utf8(','.repeat(10_000)))).msg).toBe('"wide.csv" has a CSV record with more than 10000 fields (KNOWLEDGE_EXTRACT_MAX_CSV_COLUMNS)');
    // 2,000 header names repeated on each of 1,000 rows: a 4 MB file whose text would be ~30 MB.
    const header = Array.from({ length: 2_000 }, (_, i) => `column_name_${i}`).join(',');
    const row = Array.from({ length: 2_000 }, () => 'x').join(',');
    const small: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, maxTextChars: 1_000_000 };
    const limited = new ExtractionPool({ ...OPTIONS, workers: 1, limits: small });
    try {
      const { msg } = await refusal(limited, 'amplified.csv', utf8(`${header}\n${`${row}\n`.repeat(1_000)}`));
      expect(msg).toBe('"amplified.csv" yields more than 1000000 characters of text (KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS)');
    } finally {
      await limited.close();
    }
  }, 30_000);

  it('ends a file at its deadline and at its memory limit, replacing the reader process', async () => {
    // Limits on structure off, so that only time and memory are left to stop the readers.
    const open: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, maxDepth: 10_000_000, maxTextChars: 1e9, maxCsvRows: 1e9 };
    const slow = new ExtractionPool({ ...OPTIONS, workers: 1, timeoutMs: 300, limits: open });
    const small = new ExtractionPool({ ...OPTIONS, workers: 1, maxMemoryMb: 64, limits: open });
    try {
      // Readers started first: the bound below is on ending the file, not on starting a process.
      await Promise.all([slow, small].map((warm) => warm.extract(utf8('warm'), { fileName: 'warm.html', workspaceId: WS })));
      const before = { deadline: await count(extractionFiles, { outcome: 'deadline' }), memory: await count(extractionReadersEnded, { reason: 'memory', with_file: 'true' }) };
      const late = await refusal(slow, 'slow.html', deepHtml(100_000));
      expect(late.msg).toBe('"slow.html" took longer than 300 ms to read (KNOWLEDGE_EXTRACT_TIMEOUT_MS)');
      expect(late.ms).toBeLessThan(5_000);
      expect((await slow.extract(utf8('still works'), { fileName: 'after.html', workspaceId: WS })).text).toBe('still works');
      const big = await refusal(small, 'big.csv', utf8('a,b,c,d\n'.repeat(2_000_000)));
      expect(big.msg).toBe('"big.csv" needs more than 64 MB of memory to read (KNOWLEDGE_EXTRACT_MAX_MEMORY_MB)');
      expect((await small.extract(utf8('still works'), { fileName: 'after.html', workspaceId: WS })).text).toBe('still works');
      // What an operator sees: each file's outcome, and why each reader ended.
      expect(await count(extractionFiles, { outcome: 'deadline' })).toBe(before.deadline + 1);
      expect(await count(extractionReadersEnded, { reason: 'memory', with_file: 'true' })).toBe(before.memory + 1);
    } finally {
      await Promise.all([slow.close(), small.close()]);
    }
  }, 60_000);

  it('refuses files with 503 once closed, those waiting for a reader included, rather than starting new readers', async () => {
    const open: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, maxDepth: 10_000_000 };
    const closing = new ExtractionPool({ ...OPTIONS, workers: 1, limits: open });
    await closing.extract(utf8('warm'), { fileName: 'warm.html', workspaceId: WS });
    const refused = (e: unknown): string => (e instanceof AppError ? e.code : String(e));
    const counted = await count(extractionFiles, { outcome: 'unavailable' });
    const reading = closing.extract(deepHtml(100_000), { fileName: 'slow.html', workspaceId: WS }).then(() => 'read', refused);
    const waiting = closing.extract(utf8('queued'), { fileName: 'queued.html', workspaceId: 'ws_other' }).then(() => 'read', refused);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await closing.close();
    const late = closing.extract(utf8('late'), { fileName: 'late.html', workspaceId: WS }).then(() => 'read', refused);
    expect(await Promise.all([reading, waiting, late])).toEqual(['unavailable', 'unavailable', 'unavailable']);
    // Each counted, the two refused by the closed pool itself included.
    expect((await count(extractionFiles, { outcome: 'unavailable' })) - counted).toBe(3);
  });

  it('refuses a file with 503 when every reader is busy and the queue is full', async () => {
    const open: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, maxDepth: 10_000_000 };
    const tiny = new ExtractionPool({ ...OPTIONS, workers: 1, queue: 1, timeoutMs: 2_000, limits: open });
    try {
      await tiny.extract(utf8('warm'), { fileName: 'warm.html', workspaceId: WS });
      // Three workspaces: none reaches its own cap, the pool as a whole is full.
      const slow = ['ws_1', 'ws_2'].map((ws) => tiny.extract(deepHtml(100_000), { fileName: 'slow.html', workspaceId: ws }).catch((e: unknown) => e));
      const error: unknown = await tiny.extract(utf8('x'), { fileName: 'third.html', workspaceId: 'ws_3' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('unavailable');
      expect((error as AppError).message).toMatch(/KNOWLEDGE_EXTRACT_QUEUE/);
      // The one that waited in the queue had its full time once a reader took it.
      for (const late of await Promise.all(slow)) expect((late as AppError).issues[0]?.msg).toMatch(/took longer than 2000 ms/);
    } finally {
      await tiny.close();
    }
  }, 30_000);

  it("reads another workspace's small file next, though one workspace has filled the reader with slow files", async () => {
    const open: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, maxDepth: 10_000_000 };
    const shared = new ExtractionPool({ ...OPTIONS, workers: 1, queue: 8, perWorkspace: 3, timeoutMs: 1_500, limits: open });
    try {
      await shared.extract(utf8('warm'), { fileName: 'warm.html', workspaceId: 'ws_busy' });
      const settled: string[] = [];
      const outcome = (name: string) => (result: unknown) => {
        settled.push(name);
        return result instanceof AppError ? `${result.code}: ${result.issues[0]?.msg ?? result.message}` : 'read';
      };
      // Each of these is ended at its deadline (1.5 s): the busy workspace would hold the reader for 4.5 s.
      const slow = [1, 2, 3].map((i) => shared.extract(deepHtml(100_000), { fileName: 'slow.html', workspaceId: 'ws_busy' }).then(outcome(`slow ${i}`), outcome(`slow ${i}`)));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const small = await shared.extract(utf8('a small note'), { fileName: 'small.html', workspaceId: 'ws_small' });
      settled.push('small');
      const slowOutcomes = await Promise.all(slow);
      expect(small.text).toBe('a small note');
      const readTooLong = 'validation: "slow.html" took longer than 1500 ms to read (KNOWLEDGE_EXTRACT_TIMEOUT_MS)';
      const waitedTooLong = 'unavailable: The uploaded file waited more than 3000 ms for a free file reader (2 × KNOWLEDGE_EXTRACT_TIMEOUT_MS); try again shortly';
      const waitedBehindOwn = "rate_limited: This workspace's other files held its share of the file readers for more than 3000 ms; retry after 1 s";
      // It waited for the file being read when it came, not for the two queued before it. Told
      // apart by outcomes, not by time (a loaded machine slows the readers, run at nice +10):
      // the second slow file was either read after the small one (it settles after it) or never
      // got the reader within its wait bound (2 × the timeout), which it would have had if it
      // had gone before the small one.
      expect(slowOutcomes[0]).toBe(readTooLong);
      expect([readTooLong, waitedTooLong, waitedBehindOwn]).toContain(slowOutcomes[1]);
      if (slowOutcomes[1] === readTooLong) expect(settled.indexOf('small')).toBeLessThan(settled.indexOf('slow 2'));
      // The third waited behind two of its own workspace's: its wait is bounded (2 × the timeout),
      // then refused: 429 when its own file held the reader at that moment, 503 when another's did.
      expect([waitedBehindOwn, waitedTooLong]).toContain(slowOutcomes[2]);
    } finally {
      await shared.close();
    }
  }, 30_000);

  it('reads a small text or markdown file at once, in no reader\'s queue, while every reader is busy with slow files', async () => {
    const open: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, maxDepth: 10_000_000 };
    const busy = new ExtractionPool({ ...OPTIONS, workers: 1, queue: 8, perWorkspace: 3, timeoutMs: 2_000, limits: open });
    try {
      await busy.extract(utf8('warm'), { fileName: 'warm.html', workspaceId: 'ws_busy' });
      const slow = [1, 2].map(() => busy.extract(deepHtml(100_000), { fileName: 'slow.html', workspaceId: 'ws_busy' }).catch((e: unknown) => e));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      const note = await busy.extract(utf8('# A note\n\nwritten quickly'), { fileName: 'note.md', workspaceId: 'ws_small' });
      const text = await busy.extract(utf8('plain words'), { fileName: 'words.txt', workspaceId: 'ws_small' });
      expect(Date.now() - started).toBeLessThan(1_000); // a reader would be free only after 2 s
      expect(note).toEqual({ text: '# A note\n\nwritten quickly', format: 'markdown', mimeType: 'text/markdown', title: null, pages: null });
      expect(text.format).toBe('text');
      // The same refusals as a reader gives: invalid UTF-8 and an empty file, at the file field.
      await expect(busy.extract(new Uint8Array([0xff, 0xfe, 0x41]), { fileName: 'bad.txt', workspaceId: 'ws_small' })).rejects.toMatchObject({ code: 'validation', issues: [expect.objectContaining({ loc: ['file'], msg: expect.stringContaining('not valid UTF-8') })] });
      await expect(busy.extract(utf8('   '), { fileName: 'blank.txt', workspaceId: 'ws_small' })).rejects.toMatchObject({ code: 'validation', message: expect.stringContaining('contains no text') });
      await Promise.all(slow);
    } finally {
      await busy.close();
    }
  }, 30_000);

  it('keeps this thread\'s event loop turning while a hostile file is read', async () => {
    const open: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, maxDepth: 10_000_000 };
    const slow = new ExtractionPool({ ...OPTIONS, workers: 1, timeoutMs: 3_000, limits: open });
    try {
      await slow.extract(utf8('warm'), { fileName: 'warm.html', workspaceId: WS });
      let worstGap = 0;
      let last = performance.now();
      const ticker = setInterval(() => {
        const now = performance.now();
        worstGap = Math.max(worstGap, now - last);
        last = now;
      }, 10);
      await slow.extract(deepHtml(100_000), { fileName: 'slow.html', workspaceId: WS }).catch(() => undefined);
      clearInterval(ticker);
      expect(worstGap).toBeLessThan(500);
    } finally {
      await slow.close();
    }
  }, 30_000);
});
