import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

import { AppError } from '@lore/platform/kernel';
import { definePDFJSModule } from 'unpdf';

/** Support for this folder's specs (not used by production code). */

/**
 * unpdf's CommonJS build loads its PDF.js bundle (an ES module) with a dynamic
 * `import()`. Plain Node runs that fine, but jest evaluates modules in a vm context without an
 * import hook (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG). So a spec that reads PDFs first
 * calls this: it imports the bundle through Node's own loader (a script compiled in the main
 * context) and hands it to unpdf, which then skips its own import. Production code needs none
 * of this.
 */
export async function loadPdfjsForJest(): Promise<void> {
  const bundle = pathToFileURL(join(dirname(require.resolve('unpdf')), 'pdfjs.mjs')).href;
  const script = new vm.Script('(url) => import(url)', {
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const importNatively = script.runInThisContext() as (url: string) => Promise<unknown>;
  await definePDFJSModule(() => importNatively(bundle));
}

export const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

/** The validation error a call rejects with, checked to be located at the uploaded file. */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe('validation');
  expect(appError.issues[0]?.loc).toEqual(['file']);
  return appError;
}
