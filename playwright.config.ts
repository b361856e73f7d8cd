import { defineConfig } from '@playwright/test'
import { ensureChromium } from './scripts/find-chromium.mjs'

/**
 * Browser tests in real Chromium, found by scripts/find-chromium.mjs: `CHROMIUM_PATH`, else
 * Playwright's own browsers when installed, else a system Chromium or Chrome on the PATH (with
 * the flags a system browser needs headless), else the headless Chromium of the devDependency
 * `@sparticuz/chromium`. Nothing downloads a browser; scripts/test.mjs says
 * what to run when there is none.
 */
const browser = await ensureChromium()

export default defineConfig({
  testMatch: '**/*.spec.ts',
  // The listener (its dashboard in test/admin, the fixtures in test/playwright) and the service
  // worker in a Vite app (test/browser, which tests src/browser).
  globalSetup: ['./test/support/listener-global-setup.ts', './test/browser/global-setup.ts'],
  projects: [
    { name: 'listener', testDir: 'test', testMatch: ['admin/*.spec.ts', 'playwright/*.spec.ts', 'listener/*.spec.ts'] },
    { name: 'worker', testDir: 'test/browser', metadata: { msw: 'msw', appUrlEnv: 'MOCKYARD_VITE_URL' } },
    // The same app on msw 2.15 (live reload is the plugin's alone: once is enough).
    { name: 'worker-msw2', testDir: 'test/browser', testIgnore: 'live-reload.spec.ts', metadata: { msw: 'msw2', appUrlEnv: 'MOCKYARD_VITE_MSW2_URL' } },
  ],
  workers: 3,
  fullyParallel: true,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['json']],
  use: {
    headless: true,
    launchOptions: { executablePath: browser?.executablePath, args: browser?.args ?? [] },
  },
})
