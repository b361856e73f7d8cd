import { defineConfig } from '@playwright/test'

/**
 * Browser tests in real Chromium. `CHROMIUM_PATH` (Debian's /usr/bin/chromium in CI) picks the
 * executable; without it Playwright's own browsers are used. Nothing downloads a browser.
 */
const executablePath = process.env.CHROMIUM_PATH || undefined

export default defineConfig({
  testMatch: '**/*.spec.ts',
  // The listener (test/browser) and the service worker in a Vite app (test/worker).
  globalSetup: ['./test/browser/global-setup.ts', './test/worker/global-setup.ts'],
  projects: [
    { name: 'listener', testDir: 'test/browser' },
    { name: 'worker', testDir: 'test/worker', metadata: { msw: 'msw', appUrlEnv: 'MOCKYARD_VITE_URL' } },
    // The same app on msw 2.15 (live reload is the plugin's alone: once is enough).
    { name: 'worker-msw2', testDir: 'test/worker', testIgnore: 'live-reload.spec.ts', metadata: { msw: 'msw2', appUrlEnv: 'MOCKYARD_VITE_MSW2_URL' } },
  ],
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
