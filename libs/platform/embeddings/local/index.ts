export * from './local-embeddings.adapter';
export * from './local-embedding-options';
// Model resolution lives in the port (the local cross-encoder resolves its files the same way); re-exported here for existing importers.
export { DEFAULT_REMOTE_HOST, ONNX_FILE, modelFiles, resolveModel } from '@lore/platform/embeddings/port';
export type { LocalDtype, ModelLocations, ModelResolution, ModelSource } from '@lore/platform/embeddings/port';
