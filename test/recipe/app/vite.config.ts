/**
 * The app under test, as an app's own vite.config would be written for the recipe: the mock
 * server's URL arrives in `MOCKYARD_URL` (Playwright's first webServer entry announced it), and
 * the app reaches the mocks either directly (`import.meta.env.VITE_MOCKYARD_URL`) or through
 * Vite's proxy (`/api/...` -> the mock server).
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const mockyardUrl = process.env.MOCKYARD_URL
if (!mockyardUrl) throw new Error('[recipe app] MOCKYARD_URL is not set: start the mock server first (Playwright webServer order).')

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  cacheDir: fileURLToPath(new URL('../../../.tmp/vite-recipe', import.meta.url)),
  clearScreen: false,
  define: { 'import.meta.env.VITE_MOCKYARD_URL': JSON.stringify(mockyardUrl) },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': { target: mockyardUrl, rewrite: (path) => path.replace(/^\/api/, '') } },
  },
})
