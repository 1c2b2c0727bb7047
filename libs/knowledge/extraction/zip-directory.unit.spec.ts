import { AppError } from '@lore/platform/kernel';

import { DEFAULT_EXTRACTION_LIMITS } from './extraction-limits';
import { docx, zip } from './hostile-files.fixture';
import { checkZip } from './zip-directory';

const refusal = (bytes: Uint8Array, limits = DEFAULT_EXTRACTION_LIMITS): string | undefined => {
  try {
    checkZip(bytes, limits, 'doc.docx');
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).issues[0]?.msg;
  }
};

describe('checkZip', () => {
  it('accepts a normal DOCX', () => {
    expect(refusal(docx(['Hello', 'World']))).toBeUndefined();
  });

  it('refuses more entries than the limit, counting the directory as it is walked', () => {
    const entries = Array.from({ length: 11 }, (_, i) => ({ name: `part${i}.xml`, data: Buffer.from('<a/>') }));
    expect(refusal(zip(entries), { ...DEFAULT_EXTRACTION_LIMITS, maxZipEntries: 10 })).toBe('"doc.docx" holds more than 10 ZIP entries (KNOWLEDGE_EXTRACT_MAX_ZIP_ENTRIES)');
    expect(refusal(zip(entries), { ...DEFAULT_EXTRACTION_LIMITS, maxZipEntries: 11 })).toBeUndefined();
  });

  it('refuses a total unzipped size over the limit from the directory, without inflating', () => {
    // Declared 3 GB: inflating it to check would take seconds and gigabytes; the refusal does not.
    const started = Date.now();
    expect(refusal(docx(['x'], { declaredSize: 3_000_000_000 }))).toBe(`"doc.docx" expands to more than ${64 * 1024 * 1024} bytes when unzipped (KNOWLEDGE_EXTRACT_MAX_UNZIPPED_BYTES)`);
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('holds entries over 1 MiB to the compression ratio, not small ones', () => {
    expect(refusal(docx(['x'], { padding: 2 * 1024 * 1024 }))).toBe('"doc.docx" has an entry compressed more than 100 times (word/document.xml) (KNOWLEDGE_EXTRACT_MAX_ZIP_RATIO)');
    expect(refusal(docx(['x'], { padding: 900 * 1024 }))).toBeUndefined();
  });

  it('refuses an entry that inflates to more than its directory declares', () => {
    expect(refusal(docx(['x'], { padding: 5_000, declaredSize: 100 }))).toMatch(/word\/document.xml expands to a size other than its ZIP directory declares/);
  });

  it('refuses a file that is not a ZIP', () => {
    expect(refusal(new Uint8Array(Buffer.from('PK\u0003\u0004 word/document.xml but no directory')))).toMatch(/no end of central directory/);
  });
});
