/**
 * The Playwright recipe, as an app's own config has it: the mock server is the first `webServer`
 * entry (the CLI on a port it announces), the app under test the second, told the mock server's
 * URL. No globalSetup: Playwright starts `webServer` entries before any global setup, so a URL
 * published there would come too late for the app.
 *
 * `wait.stdout` captures the URL from the CLI's line `mockyard listening on http://HOST:PORT`;
 * Playwright stores a named group in the environment (`mockyard_url` -> `MOCKYARD_URL`) before it
 * starts the next entry and the test workers, so the app and `mockyardFixtures()` both read it.
 * Run by scripts/test.mjs (`npx playwright test --config test/recipe/playwright.config.ts`).
 */
import { defineConfig } from '@playwright/test'
import { ensureChromium } from '../../scripts/find-chromium.mjs'

const browser = await ensureChromium()

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['json']],
  webServer: [
    {
      name: 'mockyard',
      // In an app: `npx mockyard --config mocks/config.js --port 0` (or a fixed --port and `url`).
      command: 'node dist/cli/main.js --routes test/fixtures/examples/routes.json --data test/fixtures/examples/data --host 127.0.0.1 --port 0 --latency 0 --no-watch --log warn',
      cwd: '../..',
      wait: { stdout: /mockyard listening on (?<mockyard_url>http:\/\/\S+)/ },
      timeout: 30_000,
    },
    {
      name: 'app',
      // In an app: `npx vite --port 5173 --strictPort` with `url: 'http://localhost:5173'`.
      command: 'npx vite --config test/recipe/app/vite.config.ts --port 0',
      cwd: '../..',
      wait: { stdout: /Local:\s+(?<recipe_app_url>http:\/\/\S+)/ },
      timeout: 60_000,
    },
  ],
  use: {
    headless: true,
    launchOptions: { executablePath: browser?.executablePath, args: browser?.args ?? [] },
  },
})
