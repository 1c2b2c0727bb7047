import { AppError } from '@lore/platform/kernel';

/** The error code a call rejects with ('resolved' when it does not): what a test expects of a refusal, in one word. */
export async function outcome(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'resolved',
    (error: unknown) => (error instanceof AppError ? error.code : String(error)),
  );
}
