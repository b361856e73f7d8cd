/**
 * The Playwright recipe end to end (test/recipe/playwright.config.ts): the mockyard CLI and the
 * guide's Vite app are Playwright `webServer` entries, the app learns the mock server's URL from
 * the environment, does not start the worker, and each test still has its own session on the one
 * listener. The guide's own spec (app/app.spec.ts) runs beside this one.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test as base, expect } from '@playwright/test'
import { mockyardFixtures } from 'mockyard/playwright'

const appUrl = process.env.APP_URL
const test = base.extend(mockyardFixtures())

test.beforeEach(async ({ page }) => {
  if (!appUrl) throw new Error('APP_URL is not set: run with --config test/recipe/playwright.config.ts')
  await page.goto('/') // the config's baseURL: APP_URL
  await expect(page.locator('#status')).toHaveText(/^ready: http:\/\/127\.0\.0\.1:\d+$/)
})

test('the app did not start the worker: the mock server answered the page, in this session', async ({ page, mockyard }) => {
  expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull()
  expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(0)
  await expect(page.locator('#users')).toHaveText('200 users.json')
  expect(await mockyard.requests({ path: '/v1/users' })).toMatchObject([{ route: 'v1/users', session: mockyard.session }])
})

test('the webServer entries ran in order: the app knows the URL the CLI announced', async ({ page, mockyard }) => {
  expect(mockyard.url).toBe(process.env.MOCKYARD_URL)
  await expect(page.locator('#status')).toHaveText(`ready: ${mockyard.url}`)
})

// The same sequence, advanced by several tests in parallel workers, the two ways the app reaches
// the mocks: sessions keep every test's state apart.
for (const way of ['callDirect', 'callProxied'] as const) {
  for (const n of [1, 2, 3]) {
    test(`${way} ${n}: sequence, overrides and request log belong to this test`, async ({ page, mockyard }) => {
      await mockyard.useRoutes({ 'v1/who': { file: 'users.json', responseHeader: { 'x-test': String(n) } } })
      const seen: string[] = []
      for (let i = 0; i < 3; i++) seen.push(await page.evaluate(([call, path]) => (window as any)[call](path), [way, '/v1/jobs/42'] as const))
      expect(seen).toEqual(['202 job-running.json', '202 job-running.json', '200 job-done.json'])
      await page.evaluate(([call]) => (window as any)[call]('/v1/claims?status=open'), [way] as const)

      const jobs = await mockyard.requests({ path: '/v1/jobs/42' })
      expect(jobs.map((r) => [r.method, r.status, r.file])).toEqual([
        ['GET', 202, 'job-running.json'],
        ['GET', 202, 'job-running.json'],
        ['GET', 200, 'job-done.json'],
      ])
      expect(new Set(jobs.map((r) => r.session))).toEqual(new Set([mockyard.session]))
      expect(await mockyard.requests({ route: 'v1/claims', method: 'get' })).toMatchObject([{ entry: 'get[0]', file: 'claims-open.json', status: 200 }])
      expect(await mockyard.requests({ path: /^\/v1\/(claims|jobs)/ })).toHaveLength(4)
      expect(await mockyard.requests({ route: 'v1/help' })).toEqual([])
    })
  }
}

test('a route override of one test does not reach another test', async ({ page, mockyard }) => {
  // No test here overrides v1/users for everyone: every session sees the configured file.
  expect(await page.evaluate(() => (window as any).callProxied('/v1/users'))).toBe('200 users.json')
  expect((await mockyard.requests({ path: '/v1/users' })).map((r) => r.file)).toEqual(['users.json', 'users.json'])
})

const withUrl = base.extend(mockyardFixtures({ url: process.env.MOCKYARD_URL }))

withUrl('mockyardFixtures({ url }) binds the fixtures to the URL given', async ({ page, mockyard }) => {
  expect(mockyard.url).toBe(process.env.MOCKYARD_URL)
  await page.goto('/')
  await expect(page.locator('#status')).toHaveText(/^ready/)
  await mockyard.useRoutes({ 'v1/users': { file: 'profile.json', status: 503 } })
  expect(await page.evaluate(() => (window as any).callDirect('/v1/users'))).toBe('503 profile.json')
  // The app's own requests on each load, then this one: all in this test's session.
  const seen = await mockyard.requests({ path: '/v1/users' })
  expect(seen.map((r) => [r.status, r.file])).toEqual([...seen.slice(0, -1).map(() => [200, 'users.json']), [503, 'profile.json']])
  expect(new Set(seen.map((r) => r.session))).toEqual(new Set([mockyard.session]))
})

// The same app in local development: `npx vite` with no MOCKYARD_URL. The guard in src/main.ts
// must start the worker then (a `define` that always set the URL once kept it from ever starting),
// and the worker answers the page from mocks/.
base('local development: the same app starts the worker, which answers the page from mocks/', async ({ page }) => {
  const env = { ...process.env }
  delete env.MOCKYARD_URL
  delete env.APP_URL
  const vite = spawn('npx', ['vite', '--host', '127.0.0.1', '--port', '0'], { cwd: fileURLToPath(new URL('./app/', import.meta.url)), env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = ''
      vite.stdout!.on('data', (chunk) => {
        out += chunk
        const found = /Local:\s+(http:\/\/\S+)/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''))
        if (found) resolve(found[1]!)
      })
      vite.on('exit', (code) => reject(new Error(`vite exited (${code}): ${out}`)))
    })
    await page.goto(url)
    await expect(page.locator('#status')).toHaveText('ready: ')
    await expect(page.locator('#users')).toHaveText('200 users.json')
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(/\/mockServiceWorker\.js$/)
  } finally {
    process.kill(-vite.pid!, 'SIGTERM')
  }
})
