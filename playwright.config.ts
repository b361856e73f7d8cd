import { defineConfig } from '@playwright/test'

/**
 * Browser tests in real Chromium. `CHROMIUM_PATH` (Debian's /usr/bin/chromium in CI) picks the
 * executable; without it Playwright's own browsers are used. Nothing downloads a browser.
 */
const executablePath = process.env.CHROMIUM_PATH || undefined

export default defineConfig({
  testDir: 'test/browser',
  testMatch: '**/*.spec.ts',
  globalSetup: './test/browser/global-setup.ts',
  workers: 3,
  fullyParallel: true,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['json']],
  use: {
    headless: true,
    launchOptions: {
      executablePath,
      args: executablePath
        ? ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic']
        : [],
    },
  },
})
