/**
 * The Playwright recipe of docs/playwright.md, run as written: `app/` is the small Vite app the
 * guide describes (`mocks/`, `vite.config.ts`, `src/main.ts`, `app.spec.ts` and its
 * `playwright.config.ts`, those four files exactly the guide's snippets: test/readme checks
 * that). The mock server is the first `webServer` entry (the CLI, `npx mockyard`, on a port it
 * announces), the app the second, told the mock server's URL. No globalSetup: Playwright starts
 * `webServer` entries before any global setup, so a URL published there would come too late.
 *
 * This file only adds what this repository needs around the app's config: the app's folder as
 * the entries' working folder (the app's config sits there; this one does not), the Chromium
 * scripts/find-chromium.mjs finds, the JSON report scripts/test.mjs counts, and recipe.spec.ts,
 * which checks sessions more closely than the guide's spec does.
 * Run by scripts/test.mjs (`npx playwright test --config test/recipe/playwright.config.ts`).
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from '@playwright/test'
import { ensureChromium } from '../../scripts/find-chromium.mjs'
import app from './app/playwright.config.js'

const browser = await ensureChromium()
const appFolder = fileURLToPath(new URL('./app/', import.meta.url))
const entries = Array.isArray(app.webServer) ? app.webServer : app.webServer ? [app.webServer] : []

export default defineConfig({
  ...app,
  testDir: '.',
  testMatch: ['recipe.spec.ts', 'app/app.spec.ts'],
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['json']],
  webServer: entries.map((entry) => ({ ...entry, cwd: appFolder, timeout: 60_000 })),
  use: {
    ...app.use,
    headless: true,
    launchOptions: { executablePath: browser?.executablePath, args: browser?.args ?? [] },
  },
})
