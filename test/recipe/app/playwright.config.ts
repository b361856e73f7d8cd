// playwright.config.ts
import { defineConfig } from '@playwright/test'

export default defineConfig({
  webServer: [
    {
      // The mock server on a free port; it prints `mockyard listening on http://127.0.0.1:PORT`.
      command: 'npx mockyard --config mocks/config.js --host 127.0.0.1 --port 0 --latency 0 --no-watch',
      // Playwright (>= 1.57) stores each named group in the environment: MOCKYARD_URL here, for
      // the next entries and the tests.
      wait: { stdout: /mockyard listening on (?<mockyard_url>http:\/\/\S+)/ },
    },
    {
      // The app (its vite.config.ts reads MOCKYARD_URL), on a free port too: APP_URL.
      command: 'npx vite --host 127.0.0.1 --port 0',
      wait: { stdout: /Local:\s+(?<app_url>http:\/\/\S+)/ },
    },
  ],
  use: { baseURL: process.env.APP_URL },
})
