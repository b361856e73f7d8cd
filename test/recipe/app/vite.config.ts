// vite.config.ts
import { defineConfig } from 'vite'
import mockyard from 'mockyard/vite'

// Set by Playwright's first webServer entry; unset in local development.
const mockyardUrl = process.env.MOCKYARD_URL ?? ''

export default defineConfig({
  plugins: [mockyard({ routes: 'mocks/routes.json' })], // local development: mocks in the page
  define: { 'import.meta.env.VITE_MOCKYARD_URL': JSON.stringify(mockyardUrl) },
  server: mockyardUrl ? { proxy: { '/api': { target: mockyardUrl, rewrite: (path) => path.replace(/^\/api/, '') } } } : {},
})
