import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { workerScript } from '@lore/platform/kernel';

import { DEFAULT_EXTRACTION_LIMITS } from './extraction-limits';
import { ExtractionProcesses, ReaderEnded, type ExtractionProcessesOptions } from './extraction-processes';
import { CHUNK_BYTES, MAX_ERROR_CHARS, MAX_PIECE_LINE_CHARS, MAX_REPLY_LINE_CHARS, TEXT_PIECE_CHARS, type ExtractionTask } from './reader-protocol';
import { buildStandIns, type StandInName } from './reader-stand-ins.fixture';

const task = (id: number, fileName = 'f.txt'): ExtractionTask => ({ id, fileName, mimeType: null, bytes: new Uint8Array([104, 105]), limits: DEFAULT_EXTRACTION_LIMITS });
const never = (): AbortSignal => new AbortController().signal;
const ended = async (promise: Promise<unknown>): Promise<ReaderEnded> => {
  const error: unknown = await promise.then(() => new Error('expected the reader to end'), (e: unknown) => e);
  expect(error).toBeInstanceOf(ReaderEnded);
  return error as ReaderEnded;
};

/** Whether a process with this pid exists (a reaped child does not). */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pids whose parent is `parent`, from /proc. */
const childrenOf = (parent: number): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // Fields after the command (in parentheses): state, then the parent's pid.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);

const until = async (condition: () => boolean, ms: number): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
};

describe('ExtractionProcesses', () => {
  let dir: string;
  let scripts: Record<StandInName, string>;
  const open: ExtractionProcesses[] = [];
  const readers = (script: string, options: Partial<ExtractionProcessesOptions> = {}): ExtractionProcesses => {
    const created = new ExtractionProcesses({ script, maxMemoryMb: 64, timeoutMs: 5_000, onStart: () => undefined, ...options });
    open.push(created);
    return created;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-readers-'));
    scripts = await buildStandIns(dir);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((created) => created.close()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends only the reader whose heap runs out, and says so; the next file gets a new reader', async () => {
    const started: number[] = [];
    const exhausting = readers(scripts.exhausting, { maxMemoryMb: 32, onStart: (id) => started.push(id) });
    for (const id of [1, 2]) {
      const error = await ended(exhausting.run(task(id), never()));
      expect(error.reason).toBe('memory');
      expect(error.stderr).toMatch(/heap out of memory/);
    }
    expect(started).toEqual([1, 2]);
  }, 60_000);

  it('tells a crash from running out of memory, with the end of what the reader wrote', async () => {
    const error = await ended(readers(scripts.crashing).run(task(1), never()));
    expect(error.reason).toBe('crash');
    expect(error.stderr).toContain('a parser fell over');
  });

  it('starts readers without the service environment, unable to read the service process files or compile code from strings', async () => {
    process.env['LORE_TEST_SECRET'] = 'not for readers';
    try {
      const outcome = await readers(scripts.environment).run(task(1), never());
      const [tries, names] = (outcome.ok ? outcome.extracted.text : '').split(' ');
      // Five reads denied, and no code compiled from a string.
      expect(tries?.split(',')).toEqual([...Array(5).fill('ERR_ACCESS_DENIED'), 'EvalError']);
      expect(names?.split(',')).not.toContain('LORE_TEST_SECRET');
    } finally {
      delete process.env['LORE_TEST_SECRET'];
    }
  });

  it('kills a reader at its deadline, and settles the file once that process is gone; the next file gets a new one', async () => {
    const obedient = readers(scripts.obedient);
    const pidOf = async (): Promise<number> => {
      const outcome = await obedient.run(task(1, 'pid.txt'), never());
      return Number(outcome.ok && outcome.extracted.text);
    };
    const first = await pidOf();
    const abort = new AbortController();
    const late = obedient.run(task(2, 'stuck.txt'), abort.signal);
    setTimeout(() => abort.abort(), 200);
    expect((await ended(late)).reason).toBe('deadline');
    expect(alive(first)).toBe(false);
    const second = await pidOf();
    expect(second).not.toBe(first);
  });

  it('refuses a file whose deadline has passed before any reader has it', async () => {
    const abort = new AbortController();
    abort.abort();
    let started = false;
    const error = await ended(readers(scripts.obedient, { onStart: () => (started = true) }).run(task(1, 'pid.txt'), abort.signal));
    expect(error.reason).toBe('deadline');
    expect(started).toBe(false);
  });

  it('gives a file 503 when a second new reader dies before starting it too, rather than trying without end', async () => {
    const error = await ended(readers(scripts.dying).run(task(1), never()));
    expect(error.reason).toBe('unavailable');
  });

  it('runs a reader whose script is reached through a symbolic link (a release folder, say)', async () => {
    const linked = join(tmpdir(), `lore-readers-link-${process.pid}`);
    symlinkSync(dir, linked);
    try {
      const outcome = await readers(join(linked, 'obedient.cjs')).run(task(1, 'pid.txt'), never());
      expect(Number(outcome.ok && outcome.extracted.text)).toBeGreaterThan(0);
    } finally {
      rmSync(linked);
    }
  });

  it('ends a reader that sends more text than the limit, and goes on serving', async () => {
    // Two full pieces fit; the third is past it.
    const limits = { ...DEFAULT_EXTRACTION_LIMITS, maxTextChars: 2 * TEXT_PIECE_CHARS + 1 };
    const error = await ended(readers(scripts.flooding).run({ ...task(1), limits }, never()));
    expect(error.reason).toBe('crash');
    expect(error.message).toContain('KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS');
  });

  describe('ends a reader that breaks the protocol (a parser made to run code), and goes on serving', () => {
    const limits = { ...DEFAULT_EXTRACTION_LIMITS, maxTextChars: 10_000 };
    // Not JSON, not a reply, or an error that is not the uploader's 422 at the file; Node's
    // internal messages (which crashed the service over Node's IPC channel) are just JSON here.
    const malformed = ['null', 'number', 'nullText', 'nullOutcome', 'noExtracted', 'arrayText', 'internalError', 'elsewhere', 'longTitle', 'extraKey', 'nodeInternal', 'notJson'];
    const cases: Array<[string, string]> = [
      ...malformed.map((name): [string, string] => [name, 'a malformed message']),
      // A short line of nested arrays (bounded before it is parsed), and a text piece without end.
      ['nested', `a message over ${MAX_REPLY_LINE_CHARS} characters`],
      ['endless', `a message over ${MAX_PIECE_LINE_CHARS} characters`],
      ['longPiece', `a text piece over ${TEXT_PIECE_CHARS} characters`],
      ['afterLastPiece', 'text after its last piece'],
      ['otherFile', 'a message for another file'],
      ['startedTwice', 'started twice'],
      ['readyTwice', 'ready twice'],
      ['tooMuchText', 'more text than KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS'],
    ];
    it.each(cases)('%s: ends it with its file, which gets crash', async (name, breach) => {
      const misbehaving = readers(scripts.misbehaving);
      const error = await ended(misbehaving.run({ ...task(1, name), limits }, never()));
      expect(error.reason).toBe('crash');
      expect(error.message).toBe(`the reader process sent ${breach}`);
    });

    it('a result before starting its file: ended like a reader that died before starting it (one more reader, then 503)', async () => {
      const endings: string[] = [];
      const misbehaving = readers(scripts.misbehaving, { onEnded: (error) => endings.push(error.message) });
      const error = await ended(misbehaving.run({ ...task(1, 'unstarted'), limits }, never()));
      expect(error.reason).toBe('unavailable');
      expect(endings).toEqual(Array(2).fill('the reader process sent a result before starting its file'));
    });

    it('a message while it has no file: the file before it is served, then the reader is ended', async () => {
      const endings: Array<[string, boolean]> = [];
      const misbehaving = readers(scripts.misbehaving, { onEnded: (error, withFile) => endings.push([error.message, withFile]) });
      const outcome = await misbehaving.run({ ...task(1, 'afterItsFile'), limits }, never());
      expect(outcome.ok && outcome.extracted.text).toBe('done');
      expect(await until(() => endings.length > 0, 5_000)).toBe(true);
      expect(endings).toEqual([['the reader process sent a message while it had no file', false]]);
    });
  });

  it('lets a reader require from a node_modules that is a symbolic link beside its folder (a shared install)', async () => {
    const app = join(dir, 'app');
    const modules = join(dir, 'shared-modules');
    mkdirSync(join(modules, 'lore-test-dependency'), { recursive: true });
    writeFileSync(join(modules, 'lore-test-dependency', 'index.js'), `module.exports = 'required';\n`);
    mkdirSync(join(app, 'dist'), { recursive: true });
    symlinkSync(modules, join(app, 'node_modules'));
    copyFileSync(scripts.requiring, join(app, 'dist', 'requiring.cjs'));
    const outcome = await readers(join(app, 'dist', 'requiring.cjs')).run(task(1), never());
    expect(outcome.ok && outcome.extracted.text).toBe('required');
  });

  describe('as another user (KNOWLEDGE_EXTRACT_UID)', () => {
    const root = process.getuid?.() === 0;
    if (!root) console.warn('SKIPPED: running readers as another user needs a test run as root');
    (root ? it : it.skip)('runs readers as that user, unable to signal the service; without it they can', async () => {
      // The user needs to read the stand-in (mkdtemp makes its folder private).
      chmodSync(dir, 0o755);
      const nobody = await readers(scripts.identity, { runAs: { uid: 65534, gid: 65534 } }).run(task(1), never());
      expect(nobody.ok && nobody.extracted.text).toBe('65534 EPERM');
      const same = await readers(scripts.identity).run(task(2), never());
      expect(same.ok && same.extracted.text).toBe('0 signalled');
    });
  });

  it('refuses a file with unavailable when no reader can be started (no file descriptors left), and the service lives on', () => {
    // A session of its own (setsid): should the service signal its process group, that stays in there.
    const printed = execFileSync('setsid', ['-w', 'bash', '-c', 'ulimit -n 64 && exec "$0" "$1" "$2"', process.execPath, scripts.starved, scripts.obedient], { encoding: 'utf8', timeout: 20_000 });
    expect(printed.trim().split('\n')).toEqual(['unavailable', 'alive']);
  });

  it('gives up on a reader that does not start a file within the start bound: unavailable, not a slot held forever', async () => {
    const error = await ended(readers(scripts.silent, { startTimeoutMs: 300 }).run(task(1), never()));
    expect(error.reason).toBe('unavailable');
  });

  it('hands a file to a new reader when the idle one it was given had died', async () => {
    const obedient = readers(scripts.obedient);
    const first = Number(await obedient.run(task(1, 'pid.txt'), never()).then((o) => o.ok && o.extracted.text));
    process.kill(first, 'SIGKILL');
    // At once: the dead reader is still taken for idle, or its death is already known; either way the file is served.
    const outcome = await obedient.run(task(2, 'pid.txt'), never());
    const second = Number(outcome.ok && outcome.extracted.text);
    expect(second).toBeGreaterThan(0);
    expect(second).not.toBe(first);
  });

  it("ends a busy reader by its own watchdog once a file has run past the hard limit, while the service can't", async () => {
    // timeoutMs 200: the watchdog's limit is 2 × 200 + 1000 ms; nothing here aborts the file.
    const watched = readers(scripts.watched, { timeoutMs: 200 });
    const at = Date.now();
    const error = await ended(watched.run(task(1), never()));
    expect(error.reason).toBe('crash');
    expect(error.message).toContain('SIGKILL');
    expect(Date.now() - at).toBeGreaterThanOrEqual(1_400);
  }, 30_000);

  describe('a busy reader never outlives its service', () => {
    const service = async (readerScript: string): Promise<{ service: ChildProcess; reader: number }> => {
      const started = fork(scripts.service, [readerScript], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
      await new Promise((resolve) => started.once('message', resolve));
      const [reader] = childrenOf(started.pid ?? 0);
      expect(reader).toBeDefined();
      return { service: started, reader: reader ?? 0 };
    };

    it('when the service is killed (SIGKILL): its watchdog ends it', async () => {
      const { service: killed, reader } = await service(scripts.watched);
      try {
        killed.kill('SIGKILL');
        expect(await until(() => !alive(reader), 5_000)).toBe(true);
      } finally {
        // Should the test fail, only the watchdog's hard limit (two minutes) would end this reader.
        if (alive(reader)) process.kill(reader, 'SIGKILL');
      }
    }, 30_000);

    it('when the service exits: the service kills it on its way out (this reader has no watchdog)', async () => {
      const { service: exiting, reader } = await service(scripts.spinning);
      try {
        exiting.send('exit');
        expect(await until(() => !alive(reader), 5_000)).toBe(true);
      } finally {
        // Should the test fail, nothing else would ever end this reader.
        if (alive(reader)) process.kill(reader, 'SIGKILL');
      }
    }, 30_000);
  });

  it('hands the real reader a file of several chunks intact', async () => {
    const text = Array.from({ length: 300_000 }, (_, i) => `line ${i}`).join('\n');
    const bytes = new Uint8Array(Buffer.from(text));
    expect(bytes.length).toBeGreaterThan(3 * CHUNK_BYTES);
    const outcome = await readers(await workerScript('extraction-worker')).run({ ...task(1), bytes }, never());
    expect(outcome.ok && outcome.extracted.text).toBe(text);
  }, 30_000);

  it('gets the real reader text of every script back intact across chunks and pieces (pairs and sequences split between them)', async () => {
    const text = '😀 é 漢 '.repeat(300_000);
    expect(text.length).toBeGreaterThan(3 * TEXT_PIECE_CHARS);
    const outcome = await readers(await workerScript('extraction-worker')).run({ ...task(1), bytes: new Uint8Array(Buffer.from(text)) }, never());
    expect(outcome.ok && outcome.extracted.text).toBe(text);
  }, 30_000);

  it("cuts the real reader's 422 to a size the service takes, for a file named at length (a multipart header allows 80 KB)", async () => {
    const fileName = `${'n'.repeat(70_000)}.txt`;
    const outcome = await readers(await workerScript('extraction-worker')).run({ ...task(1, fileName), bytes: new Uint8Array([0xff, 0xfe]) }, never());
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('validation');
    expect(outcome.error.message).toHaveLength(MAX_ERROR_CHARS);
    expect(outcome.error.message.startsWith('"nnn')).toBe(true);
  }, 30_000);

  it('takes no file to a reader that closed its channel and lives on: the next file gets a new reader at once', async () => {
    const closing = readers(scripts.closing, { startTimeoutMs: 3_000 });
    const pidOf = async (id: number): Promise<number> => {
      const outcome = await closing.run(task(id, 'pid.txt'), never());
      return Number(outcome.ok && outcome.extracted.text);
    };
    const first = await pidOf(1);
    expect(await until(() => !alive(first), 5_000)).toBe(true);
    expect(await pidOf(2)).not.toBe(first);
  });

  it('ends a reader that writes to stderr without end, idle or not', async () => {
    const endings: string[] = [];
    const noisy = readers(scripts.noisy, { onEnded: (error) => endings.push(error.message) });
    await noisy.run(task(1, 'pid.txt'), never());
    expect(await until(() => endings.length > 0, 10_000)).toBe(true);
    expect(endings).toEqual(['the reader process wrote more than 1048576 characters to stderr']);
  }, 20_000);

  it('lets a service whose readers are idle exit by itself, its reader with it', async () => {
    const printed = execFileSync(process.execPath, [scripts.finishing, scripts.obedient], { encoding: 'utf8', timeout: 15_000 });
    const reader = Number(printed.trim());
    expect(reader).toBeGreaterThan(0);
    // The reader sees its channel end once the service is gone.
    expect(await until(() => !alive(reader), 5_000)).toBe(true);
  }, 20_000);

  it('runs the real reader with every thread at nice +10, its watchdog among them', async () => {
    const real = readers(await workerScript('extraction-worker'));
    const outcome = await real.run({ ...task(1), bytes: new Uint8Array(Buffer.from('hello')) }, never());
    expect(outcome.ok && outcome.extracted.text).toBe('hello');
    const [reader] = childrenOf(process.pid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--lore-extraction-reader'));
    const threads = readdirSync(`/proc/${reader}/task`);
    const nice = threads.map((thread) => {
      const stat = readFileSync(`/proc/${reader}/task/${thread}/stat`, 'utf8');
      // Field 19 (nice) is the 17th after the command's closing parenthesis.
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
    expect(nice.length).toBeGreaterThan(2);
    expect(new Set(nice)).toEqual(new Set([10]));
  }, 30_000);
});
