/**
 * docs/behaviour.md, "Defaults per surface": the Playwright helpers fail a test whose session made
 * a request nothing answered (`onUnhandledRequest: 'error'`), as setupMockServer does, with the
 * explanations, once; `'warn'` prints them, `'bypass'` lets them be. A real Playwright run (the
 * built mockyard/playwright: `npm run build` first) of a spec against a listener started in its
 * globalSetup, one test of it in Chromium.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mockyardFixtures } from 'mockyard/playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIND_CHROMIUM = join(ROOT, 'scripts', 'find-chromium.mjs')

interface Result {
  title: string
  status: string
  errors: string[]
  stderr: string
}

/** The explanation the listener gives for a GET of a path its one route does not have, to its end. */
const noRoute = (path: string) => `[mockyard] no route answers GET ${path}: no route has the path ${path}.\nClosest routes:\n  - v1/users (GET, POST, PUT, PATCH, DELETE)\nAdd a route to your routes file, for example "${path.slice(1)}": { "file": "${path.split('/').pop()}.json" }.`
const HINT = "Add a route (to the routes file, or mockyard.useRoutes() in the test) or a handler, or set onUnhandledRequest to 'warn' or 'bypass' (mockyardFixtures({ onUnhandledRequest }))."

describe('the mockyard fixture and the requests nothing answered', () => {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true })
  const folder = mkdtempSync(join(ROOT, '.tmp', 'playwright-unmatched-'))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))
  let results: Map<string, Result>
  let output: string

  beforeAll(() => {
    writeFileSync(
      join(folder, 'playwright.config.ts'),
      `import { defineConfig } from '@playwright/test'
import { ensureChromium } from ${JSON.stringify(FIND_CHROMIUM)}
const browser = await ensureChromium()
export default defineConfig({
  testDir: '.',
  globalSetup: './global-setup.ts',
  workers: 2,
  retries: 0,
  reporter: [['json', { outputFile: 'results.json' }]],
  outputDir: 'test-results',
  use: { headless: true, launchOptions: { executablePath: browser?.executablePath, args: browser?.args ?? [] } },
})
`,
    )
    writeFileSync(
      join(folder, 'global-setup.ts'),
      `import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { globalSetup } from 'mockyard/playwright'

const startMockyard = globalSetup({ routes: { 'v1/users': { status: 200 } } })

// The listener, and an app page on a loopback origin of its own (APP_URL) that calls it cross-origin.
export default async function setup() {
  const stopMockyard = await startMockyard()
  const app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>app</p>'))
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  process.env.APP_URL = \`http://localhost:\${(app.address() as AddressInfo).port}/\`
  return async () => {
    app.closeAllConnections()
    app.close()
    await stopMockyard()
  }
}
`,
    )
    writeFileSync(
      join(folder, 'unmatched.spec.ts'),
      `import { test as base, expect } from '@playwright/test'
import { mockyardFixtures } from 'mockyard/playwright'

const test = base.extend(mockyardFixtures())
const warned = base.extend(mockyardFixtures({ onUnhandledRequest: 'warn' }))
const bypassed = base.extend(mockyardFixtures({ onUnhandledRequest: 'bypass' }))

/** A request of the test's session, from Node. */
const send = (mockyard: { url: string; session: string }, path: string, session = mockyard.session) => fetch(mockyard.url + path, { headers: { 'x-mockyard-session': session } })

test('the page requests a path no route answers', async ({ page, mockyard }) => {
  await page.goto(process.env.APP_URL!)
  const statuses = await page.evaluate(async (url) => [(await fetch(url + '/v1/users')).status, (await fetch(url + '/v1/nope')).status], mockyard.url)
  expect(statuses).toEqual([200, 404])
})

test('every request answered', async ({ mockyard }) => {
  expect((await send(mockyard, '/v1/users')).status).toBe(200)
})

test('an unanswered request of another session', async ({ mockyard }) => {
  expect((await send(mockyard, '/v1/theirs', 'someone-else')).status).toBe(404)
})

test('two unanswered, one the test already failed with', async ({ mockyard }) => {
  await send(mockyard, '/v1/shown')
  const { message } = await (await send(mockyard, '/v1/shown')).json()
  await send(mockyard, '/v1/swallowed')
  throw new Error(message)
})

warned('warn', async ({ mockyard }) => {
  expect((await send(mockyard, '/v1/warned')).status).toBe(404)
})

bypassed('bypass', async ({ mockyard }) => {
  expect((await send(mockyard, '/v1/bypassed')).status).toBe(404)
})
`,
    )
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }
    delete env.MOCKYARD_URL
    const run = spawnSync('npx', ['playwright', 'test', '--config', join(folder, 'playwright.config.ts')], { cwd: ROOT, env, encoding: 'utf8', timeout: 150_000 })
    output = run.stdout + run.stderr
    let report: { suites: Array<{ specs: Array<{ title: string; tests: Array<{ results: Array<{ status: string; errors: Array<{ message?: string }>; stderr: Array<{ text?: string }> }> }> }> }> }
    try {
      report = JSON.parse(readFileSync(join(folder, 'results.json'), 'utf8'))
    } catch {
      throw new Error(`Playwright wrote no report:\n${output}`)
    }
    results = new Map(
      report.suites
        .flatMap((suite) => suite.specs)
        .map((spec) => {
          const result = spec.tests[0]!.results[0]!
          return [spec.title, { title: spec.title, status: result.status, errors: result.errors.map((error) => error.message ?? ''), stderr: result.stderr.map((chunk) => chunk.text ?? '').join('') }]
        }),
    )
  }, 180_000)

  const result = (title: string): Result => {
    const found = results.get(title)
    if (!found) throw new Error(`no result for "${title}":\n${output}`)
    return found
  }

  it("fails the test whose page sent it, after the test, with setupMockServer's message and the explanation", () => {
    const { status, errors } = result('the page requests a path no route answers')
    expect(status).toBe('failed')
    expect(errors).toEqual([`Error: [mockyard] a request had no mock in this test:\n${noRoute('/v1/nope')}\n${HINT}`])
  })

  it('passes a test whose requests were all answered, and one whose unanswered request is of another session', () => {
    expect(result('every request answered')).toMatchObject({ status: 'passed', errors: [] })
    expect(result('an unanswered request of another session')).toMatchObject({ status: 'passed', errors: [] })
  })

  it('an explanation the test already failed with is not said again; the others are', () => {
    const { status, errors } = result('two unanswered, one the test already failed with')
    expect(status).toBe('failed')
    expect(errors).toHaveLength(2)
    expect(errors[0]).toContain(noRoute('/v1/shown'))
    expect(errors[1]).toBe(`Error: [mockyard] a request had no mock in this test:\n${noRoute('/v1/swallowed')}\n${HINT}`)
  })

  it("onUnhandledRequest 'warn' prints the explanation and passes; 'bypass' says nothing and passes", () => {
    expect(result('warn')).toMatchObject({ status: 'passed', errors: [] })
    expect(result('warn').stderr).toBe(`${noRoute('/v1/warned')}\n`)
    expect(result('bypass')).toMatchObject({ status: 'passed', errors: [], stderr: '' })
  })
})

describe('mockyardFixtures({ onUnhandledRequest })', () => {
  it('refuses a value other than error, warn and bypass, at once', () => {
    expect(() => mockyardFixtures({ onUnhandledRequest: 'loud' as never })).toThrow(
      new TypeError('[mockyard] mockyardFixtures({ onUnhandledRequest }) must be "error", "warn" or "bypass", got "loud". Pick one of "error", "warn" and "bypass".'),
    )
    for (const strategy of ['error', 'warn', 'bypass'] as const) expect(() => mockyardFixtures({ onUnhandledRequest: strategy })).not.toThrow()
  })
})
