export { chunkText, MAX_CHARS_PER_CALL, MAX_SEGMENT_CHARS } from './text-chunker';
export type { ChunkingSettings, TextChunk, Tokenize } from './text-chunker';
