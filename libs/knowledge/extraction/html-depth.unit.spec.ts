import { AppError } from '@lore/platform/kernel';

import { DEFAULT_EXTRACTION_LIMITS } from './extraction-limits';
import { checkHtmlDepth } from './html-depth';

const limits = { ...DEFAULT_EXTRACTION_LIMITS, maxDepth: 10 };
const depthError = (html: string): AppError | undefined => {
  try {
    checkHtmlDepth(html, limits, 'page.html');
    return undefined;
  } catch (error) {
    return error as AppError;
  }
};

describe('checkHtmlDepth', () => {
  it('accepts nesting up to the limit and refuses one level more, naming the limit', () => {
    expect(depthError(`${'<div>'.repeat(10)}x${'</div>'.repeat(10)}`)).toBeUndefined();
    const error = depthError(`${'<div>'.repeat(11)}x`);
    expect(error).toBeInstanceOf(AppError);
    expect(error?.issues).toEqual([{ loc: ['file'], msg: '"page.html" nests its HTML deeper than 10 levels (KNOWLEDGE_EXTRACT_MAX_DEPTH)', type: 'limit_exceeded' }]);
  });

  it('counts depth as the DOM has it: closed, implicitly closed and void elements do not nest', () => {
    expect(depthError('<div></div>'.repeat(1_000))).toBeUndefined();
    expect(depthError(`<ul>${'<li>item'.repeat(1_000)}</ul>${'<p>para'.repeat(1_000)}`)).toBeUndefined();
    expect(depthError(`<div>${'<br><img src=x><input>'.repeat(1_000)}</div>`)).toBeUndefined();
  });

  it('stops at the first element past the limit: 100,000 levels cost no more than the limit', () => {
    const started = Date.now();
    expect(depthError('<b>'.repeat(100_000))).toBeInstanceOf(AppError);
    expect(Date.now() - started).toBeLessThan(200);
  });
});
