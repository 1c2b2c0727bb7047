import { Progress } from './progress';

function recorder(isTTY: boolean): { stream: { isTTY: boolean; write: (t: string) => boolean }; text: () => string } {
  let written = '';
  return { stream: { isTTY, write: (t: string) => (written += t) > '' }, text: () => written };
}

describe('Progress', () => {
  let clock = 0;
  const now = (): number => clock;

  beforeEach(() => {
    clock = 0;
  });

  it('on a terminal, redraws one bar in place, at most every 100 ms, and ends its line', () => {
    const out = recorder(true);
    const progress = Progress.for(out.stream, {}, now);
    progress.start('memory', 5000);
    progress.update(1234);
    clock = 150;
    progress.update(1234);
    progress.update(2000);
    clock = 1000;
    progress.finish(5000);
    const frames = out.text().split('\r').filter(Boolean);
    expect(frames).toEqual([
      `[${'-'.repeat(30)}] 0/5000 memory\x1b[K`,
      `[${'#'.repeat(7)}${'-'.repeat(23)}] 1234/5000 memory\x1b[K`,
      `[${'#'.repeat(30)}] 5000/5000 memory\x1b[K\n`,
    ]);
  });

  it('elsewhere, writes a line per step and at most one progress line every two seconds', () => {
    const out = recorder(false);
    const progress = Progress.for(out.stream, {}, now);
    progress.start('memory', 5000);
    for (clock = 0; clock <= 5000; clock += 100) progress.update(clock);
    progress.finish(5000);
    expect(out.text()).toBe(['memory: 5000 data keys to re-wrap', 'memory: 2000/5000', 'memory: 4000/5000', 'memory: 5000 data keys re-wrapped in 5.1 s', ''].join('\n'));
  });

  it('treats CI as no terminal even when stderr is one', () => {
    const out = recorder(true);
    Progress.for(out.stream, { CI: 'true' }, now).start('keys', 3);
    expect(out.text()).toBe('keys: 3 data keys to re-wrap\n');
  });

  it('leaves an unfinished bar\'s line before a message, and only then', () => {
    const out = recorder(true);
    const progress = Progress.for(out.stream, {}, now);
    progress.interrupt();
    expect(out.text()).toBe('');
    progress.start('keys', 3);
    progress.interrupt();
    expect(out.text().endsWith('\x1b[K\n')).toBe(true);
  });
});
