import { AppError } from '@lore/platform/kernel';
import { EmbeddingUnavailableError, isEmbeddingUnavailable } from './embedding-errors';

describe('EmbeddingUnavailableError', () => {
  it('is an AppError with code unavailable that serialises like one', () => {
    const error = new EmbeddingUnavailableError('timeout', 'slow');
    expect(error).toBeInstanceOf(AppError);
    expect(isEmbeddingUnavailable(error)).toBe(true);
    expect(error.toJSON()).toEqual({ code: 'unavailable', message: 'slow', issues: [] });
  });

  it('tells transient causes from permanent ones', () => {
    expect(new EmbeddingUnavailableError('worker_crashed', '').retryable).toBe(true);
    expect(new EmbeddingUnavailableError('rate_limited', '').retryable).toBe(true);
    expect(new EmbeddingUnavailableError('model_not_found', '').retryable).toBe(false);
    expect(new EmbeddingUnavailableError('closed', '').retryable).toBe(false);
  });

  it('names MODELS_DIR, the files and the places searched when the model is missing', () => {
    const error = EmbeddingUnavailableError.modelNotFound({
      model: 'Xenova/all-MiniLM-L6-v2',
      files: ['config.json', 'onnx/model_quantized.onnx'],
      searched: ['/models/Xenova/all-MiniLM-L6-v2', '/data/models/Xenova/all-MiniLM-L6-v2'],
      download: 'downloading is turned off',
    });
    expect(error.reason).toBe('model_not_found');
    expect(error.message).toContain('Set MODELS_DIR to a directory that holds Xenova/all-MiniLM-L6-v2/{config.json,onnx/model_quantized.onnx}');
    expect(error.message).toContain('/data/models/Xenova/all-MiniLM-L6-v2');
    expect(error.message).toContain('downloading is turned off');
  });
});
