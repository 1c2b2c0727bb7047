// The console's build (tools/build.mjs runs it): a single-page app served by the gateway at
// /console from dist/console, hashed assets under /console/assets/.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  resolve: {
    alias: [{ find: /^@lore\/client$/, replacement: fileURLToPath(new URL('../../libs/client/index.ts', import.meta.url)) }],
  },
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts or data: URLs, so the gateway's CSP can say script-src 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
