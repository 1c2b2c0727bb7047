import { knowledgeConfig } from '@lore/knowledge/contracts';

import { DEFAULT_EXTRACTION_LIMITS } from './extraction-limits';

describe('extraction configuration', () => {
  it('defaults to the documented limits, the same ones extractText uses without a configuration', () => {
    const { extraction } = knowledgeConfig.parse({});
    expect(extraction).toEqual({ workers: 2, queue: 16, perWorkspace: 4, timeoutMs: 15_000, maxMemoryMb: 512, runAs: null, limits: DEFAULT_EXTRACTION_LIMITS });
  });

  it('reads every limit from its KNOWLEDGE_EXTRACT_* variable', () => {
    const { extraction } = knowledgeConfig.parse({
      KNOWLEDGE_EXTRACT_WORKERS: '3',
      KNOWLEDGE_EXTRACT_QUEUE: '4',
      KNOWLEDGE_EXTRACT_PER_WORKSPACE: '5',
      KNOWLEDGE_EXTRACT_TIMEOUT_MS: '5000',
      KNOWLEDGE_EXTRACT_MAX_MEMORY_MB: '128',
      KNOWLEDGE_EXTRACT_MAX_DEPTH: '100',
      KNOWLEDGE_EXTRACT_MAX_UNZIPPED_BYTES: '1000',
      KNOWLEDGE_EXTRACT_MAX_ZIP_ENTRIES: '10',
      KNOWLEDGE_EXTRACT_MAX_ZIP_RATIO: '20',
      KNOWLEDGE_EXTRACT_MAX_CSV_ROWS: '30',
      KNOWLEDGE_EXTRACT_MAX_CSV_COLUMNS: '40',
      KNOWLEDGE_EXTRACT_MAX_PDF_PAGES: '50',
      KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS: '60',
    });
    expect(extraction).toEqual({
      workers: 3,
      queue: 4,
      perWorkspace: 5,
      timeoutMs: 5000,
      maxMemoryMb: 128,
      runAs: null,
      limits: { maxDepth: 100, maxUnzippedBytes: 1000, maxZipEntries: 10, maxZipRatio: 20, maxCsvRows: 30, maxCsvColumns: 40, maxPdfPages: 50, maxTextChars: 60 },
    });
  });

  describe('the user reader processes run as (KNOWLEDGE_EXTRACT_UID, _GID)', () => {
    const asUid = (uid: number): jest.SpyInstance => jest.spyOn(process, 'getuid').mockReturnValue(uid);
    afterEach(() => jest.restoreAllMocks());

    it('is the service’s own when unset or empty (an empty value is not uid 0)', () => {
      expect(knowledgeConfig.parse({ KNOWLEDGE_EXTRACT_UID: '' }).extraction.runAs).toBeNull();
    });

    it('takes the group from the user unless given, for a service running as root', () => {
      asUid(0);
      expect(knowledgeConfig.parse({ KNOWLEDGE_EXTRACT_UID: '65534' }).extraction.runAs).toEqual({ uid: 65534, gid: 65534 });
      expect(knowledgeConfig.parse({ KNOWLEDGE_EXTRACT_UID: '65534', KNOWLEDGE_EXTRACT_GID: '65533' }).extraction.runAs).toEqual({ uid: 65534, gid: 65533 });
    });

    it('is refused at start-up when the service is not root, for ids that are not plain decimal numbers from 1 to 2³¹ − 1 (root included), or a group without a user', () => {
      asUid(1000);
      expect(() => knowledgeConfig.parse({ KNOWLEDGE_EXTRACT_UID: '65534' })).toThrow(/needs the service to run as root \(it runs as uid 1000\)/);
      asUid(0);
      for (const id of ['nobody', '0', '-0', '0x10', '1e3', '2147483648', '9007199254740993']) {
        expect(() => knowledgeConfig.parse({ KNOWLEDGE_EXTRACT_UID: id })).toThrow(/numeric user or group id from 1 to 2147483647/);
      }
      expect(() => knowledgeConfig.parse({ KNOWLEDGE_EXTRACT_UID: '65534', KNOWLEDGE_EXTRACT_GID: '0' })).toThrow(/numeric user or group id/);
      expect(() => knowledgeConfig.parse({ KNOWLEDGE_EXTRACT_GID: '65534' })).toThrow(/only used with KNOWLEDGE_EXTRACT_UID/);
    });
  });
});
