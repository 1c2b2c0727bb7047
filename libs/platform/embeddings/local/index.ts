export * from './local-embeddings.adapter';
export { DEFAULT_REMOTE_HOST, ONNX_FILE, modelFiles, resolveModel } from './model-resolution';
export type { LocalDtype, ModelLocations, ModelResolution, ModelSource } from './model-resolution';
