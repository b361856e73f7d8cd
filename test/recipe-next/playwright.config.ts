/**
 * The server-side rendering recipe of docs/ssr.md, run in CI by scripts/test.mjs: the mockyard
 * CLI, a Next.js App Router app (`next build`, then `next start`) and an Express SSR app, all
 * Playwright `webServer` entries; 4 workers. Each test overrides the same endpoint with its own
 * data and must see only its own, also in the HTML its app server rendered.
 *
 * prepare.mjs installs the recipe's own dependencies (its lockfile) and mockyard as an installed
 * package, once, before the tests are collected (they import `mockyard/playwright`).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { defineConfig } from '@playwright/test'
import { ensureChromium } from '../../scripts/find-chromium.mjs'

const here = fileURLToPath(new URL('.', import.meta.url))
// The config is loaded again in every worker: prepare once, in the runner.
if (!process.env.MOCKYARD_RECIPE_NEXT_READY) {
  const status = spawnSync(process.execPath, ['prepare.mjs'], { cwd: here, stdio: ['ignore', 'inherit', 'inherit'] }).status
  if (status !== 0) throw new Error('test/recipe-next/prepare.mjs failed (see above)')
  process.env.MOCKYARD_RECIPE_NEXT_READY = '1'
}
const browser = await ensureChromium()

export default defineConfig({
  testDir: '.',
  testMatch: ['next.spec.ts', 'express.spec.ts'],
  fullyParallel: true,
  workers: 4,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['json']],
  webServer: [
    {
      // The mock server; Playwright stores the named group in the environment (MOCKYARD_URL)
      // for the next entries (the app servers read it) and the tests.
      command: 'npx mockyard --routes mocks/routes.json --data mocks/data --host 127.0.0.1 --port 0 --latency 0 --no-watch',
      wait: { stdout: /mockyard listening on (?<mockyard_url>http:\/\/\S+)/ },
      cwd: here,
      timeout: 60_000,
    },
    {
      command: 'npx next build && npx next start -H 127.0.0.1 -p 0',
      wait: { stdout: /Local:\s+(?<next_url>http:\/\/\S+)/ },
      cwd: here,
      timeout: 300_000,
    },
    {
      command: 'node express/server.mjs',
      wait: { stdout: /express listening on (?<express_url>http:\/\/\S+)/ },
      cwd: here,
      timeout: 60_000,
    },
  ],
  projects: [
    { name: 'next', testMatch: 'next.spec.ts', use: { baseURL: process.env.NEXT_URL } },
    { name: 'express', testMatch: 'express.spec.ts', use: { baseURL: process.env.EXPRESS_URL } },
  ],
  use: {
    headless: true,
    launchOptions: { executablePath: browser?.executablePath, args: browser?.args ?? [] },
  },
})
