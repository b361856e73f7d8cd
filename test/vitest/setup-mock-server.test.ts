import { spawn } from 'node:child_process'
import { request as httpRequest, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { EXAMPLES_DATA, EXAMPLES_ROUTES } from '../contract/cases.js'

const mocks = setupMockServer({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA })

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk) => (body += chunk)).on('end', () => resolve({ status: res.statusCode!, body }))
    })
      .on('error', reject)
      .end()
  })
}

describe('setupMockServer', () => {
  it('answers fetch for any host, with latency 0 by default', async () => {
    const started = performance.now()
    const res = await fetch('https://anything.example/v1/users')
    expect(await res.json()).toEqual({ file: 'users.json' })
    expect(performance.now() - started).toBeLessThan(300)
  })

  it("answers Node's http client (what axios uses in Node)", async () => {
    expect(await get('http://api.test/v1/claims?status=open')).toEqual({ status: 200, body: '{"file":"claims-open.json"}\n' })
  })

  it('records requests, filterable, and waits for one', async () => {
    await fetch('http://api.test/v1/payments', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer secret' }, body: '{"method":{"type":"card"}}' })
    await fetch('http://api.test/v1/users')
    const [payment] = mocks.requests({ method: 'POST' })
    expect(payment).toMatchObject({ method: 'POST', route: 'v1/payments', entry: 'post[0]', file: 'payment-card.json', status: 200, body: '{"method":{"type":"card"}}' })
    expect(payment!.headers.authorization).toBe('<redacted>')
    expect(mocks.requests({ path: '/v1/users' })).toHaveLength(1)
    const later = mocks.waitForRequest((r) => r.url.endsWith('/v1/profile'), { timeout: 2000 })
    void fetch('http://api.test/v1/profile')
    expect((await later).route).toBe('v1/profile')
  })

  it('the log of the previous test is gone', () => {
    expect(mocks.requests()).toEqual([])
  })

  it('use() adds handlers in front of the routes for one test', async () => {
    mocks.use(http.get('*/v1/users', () => HttpResponse.json({ overridden: true })))
    expect(await (await fetch('http://api.test/v1/users')).json()).toEqual({ overridden: true })
    expect(mocks.requests()[0]).toMatchObject({ entry: 'handler', status: 200 })
  })

  it('useRoutes() adds or replaces routes for one test', async () => {
    mocks.useRoutes({ 'v1/users': { file: 'claims-all.json', status: 299 }, 'v1/new': { status: 204 } })
    expect((await fetch('http://api.test/v1/users')).status).toBe(299)
    expect((await fetch('http://api.test/v1/new')).status).toBe(204)
  })

  it('useRoutes() takes a routes file, whose files come from its own data folder', async () => {
    mocks.useRoutes(fileURLToPath(new URL('../fixtures/overrides/routes.json', import.meta.url)))
    expect(await (await fetch('http://api.test/v1/users')).json()).toEqual({ overridden: 'from its own data folder' })
    expect(await (await fetch('http://api.test/v1/claims')).json()).toEqual({ file: 'claims-all.json' })
  })

  it('the handlers and routes of the previous tests are gone', async () => {
    expect(await (await fetch('http://api.test/v1/users')).json()).toEqual({ file: 'users.json' })
  })

  it('a sequence moves on within a test', async () => {
    const statuses = []
    for (let i = 0; i < 2; i++) statuses.push((await fetch('http://api.test/v1/jobs/42')).status)
    // Two of the three answers are used: without a reset the next test would get the third, 200.
    expect(statuses).toEqual([202, 202])
  })

  it('sequences start over in every test', async () => {
    expect((await fetch('http://api.test/v1/jobs/42')).status).toBe(202)
  })
})

describe('unmatched requests', () => {
  const fixture = fileURLToPath(new URL('../fixtures/vitest/', import.meta.url))
  // Async: the bypass case's real server lives in this process and must keep answering.
  const runFixture = (file: string, env: Record<string, string> = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('npx', ['vitest', 'run', '--config', fixture + 'vitest.config.ts', '--root', fixture, file], {
        env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' },
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk) => (stdout += chunk))
      child.stderr.on('data', (chunk) => (stderr += chunk))
      child.on('close', (status) => resolve({ status, stdout, stderr }))
    })

  /**
   * What the child Vitest printed for one failed test: its error and causes, whole, without the
   * lines that point into files (code frames and stack lines, checked apart where they matter).
   */
  const failureOf = (stderr: string, file: string, title: string) => {
    const section = stderr.split(/\n FAIL {2}/).find((part) => part.startsWith(`${file} > ${title}\n`))
    if (section === undefined) throw new Error(`no failure of "${title}" in:\n${stderr}`)
    return section
      .slice(`${file} > ${title}\n`.length)
      .split(/\n⎯/)[0]!
      .split('\n')
      .filter((line) => !/^ ❯ |^\s+\d*\|/.test(line))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  }
  /** The explanation of a path the examples do not have, with the closest three routes. */
  const noPath = (path: string, closest: string[]) =>
    [
      `[mockyard] no route answers GET /v1/${path}: no route has the path /v1/${path}.`,
      'Closest routes:',
      ...closest.map((key) => `  - v1/${key} (GET, POST, PUT, PATCH, DELETE)`),
      `Add a route to your routes file, for example "v1/${path}": { "file": "${path}.json" }.`,
    ].join('\n')
  const afterTheTest = (explanation: string) =>
    `Error: [mockyard] a request had no mock in this test:\n${explanation}\nAdd a route or a handler (mocks.use()), or set onUnhandledRequest to 'warn' or 'bypass'.`

  it('fail the test that made them, with the explanation, even when the app swallows the error', async () => {
    const result = await runFixture('unmatched.fixture.ts')
    expect(result.status).toBe(1)
    expect(failureOf(result.stderr, 'unmatched.fixture.ts', 'swallows the failed request')).toBe(afterTheTest(noPath('claimz', ['claims', 'links', 'users'])))
    expect(result.stdout).toMatch(/Tests\s+1 failed \| 1 passed \(2\)/)
  })

  it('two identical unmatched requests at once are both explained, each with its own explanation', async () => {
    const result = await runFixture('concurrent.fixture.ts')
    const output = result.stdout + result.stderr
    expect(result.status).toBe(1)
    const explanation = [
      '[mockyard] no route answers GET /v1/claimz: no route has the path /v1/claimz.',
      'Closest routes:',
      '  - v1/claims (GET, POST, PUT, PATCH, DELETE)',
      '  - v1/links (GET, POST, PUT, PATCH, DELETE)',
      '  - v1/users (GET, POST, PUT, PATCH, DELETE)',
      'Add a route to your routes file, for example "v1/claimz": { "file": "claimz.json" }.',
    ].join('\n')
    // Both requests fail with the engine's explanation, not the second with a generic text.
    expect(output).toContain(`REJECTED WITH:\n${explanation}\n${explanation}\nEND`)
    // The test swallowed them: it fails after the test, naming both.
    expect(output).toContain(`[mockyard] 2 requests had no mock in this test:\n${explanation}\n${explanation}\nAdd a route or a handler (mocks.use()), or set onUnhandledRequest to 'warn' or 'bypass'.`)
  }, 60_000)

  it('each explanation is printed once, without stack frames of mockyard or its interception libraries', async () => {
    const result = await runFixture('noise.fixture.ts')
    const output = result.stdout + result.stderr
    expect(result.status).toBe(1)
    expect(output).toMatch(/Tests\s+5 failed/)
    // Thrown at the request (fetch, wrapped as a cause, Node's http, axios) or, swallowed, after the test.
    for (const path of ['/v1/by-fetch', '/v1/by-wrapped', '/v1/by-http', '/v1/by-axios', '/v1/by-swallowed']) {
      expect(output.split(`no route answers GET ${path}:`).length - 1, path).toBe(1)
    }
    // Each failure whole: the explanation as the request's own error, as its cause, or after the test.
    const failure = (title: string) => failureOf(result.stderr, 'noise.fixture.ts', title)
    expect(failure('fetch, not caught')).toBe(`TypeError: ${noPath('by-fetch', ['feed', 'users', 'orders'])}`)
    expect(failure('fetch, wrapped in an error of its own (Caused by)')).toBe(
      `Error: loading failed\n\nCaused by: TypeError: ${noPath('by-wrapped', ['report', 'feed', 'users'])}`,
    )
    expect(failure("Node's http client")).toBe(`TypeError: ${noPath('by-http', ['help', 'payments', 'report'])}`)
    expect(failure('axios, which copies the message into its own error and keeps ours as the cause')).toBe(
      `TypeError: ${noPath('by-axios', ['claims', 'users', 'orders'])}`,
    )
    expect(failure('swallowed by the app')).toBe(afterTheTest(noPath('by-swallowed', ['profile', 'feed', 'users'])))
    // The failing line of the test is shown; no line of mockyard's sources or bundle, nor of @mswjs.
    expect(output).toContain('noise.fixture.ts:13:3')
    expect(output).not.toMatch(/(src|dist)\/(node|vitest|core|chunks)\/[\w/-]+\.(ts|js):\d+/)
    // Nor of the interceptors, in the errors mockyard throws (axios's own error has its own stack).
    const section = (title: string) => output.split(/\n FAIL /).slice(1).find((part) => part.includes(title)) ?? ''
    expect(section("Node's http client")).not.toContain('@mswjs')
    // axios copies the message into its error: the cause is not printed a second time.
    expect(section('axios,')).not.toContain('Caused by')
  }, 60_000)

  it("warnings reach the test output once: a typo'd route key, a missing data file, and requests under 'warn'", async () => {
    const result = await runFixture('warnings.fixture.ts')
    expect(result.status).toBe(0)
    // Everything the child wrote to stderr but npm's own notices, with the fixtures folder named <fixtures>.
    const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url))
    const warnings = result.stderr
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('npm warn'))
      .join('\n')
      .replaceAll(fixtures, '<fixtures>/')
    // The files that are there (checked without reading them) are not warned about.
    expect(warnings).toBe(
      [
        '[mockyard] <fixtures>/vitest/warnings.json#/v1~1users/fiel: unknown key "fiel" in a route; it is ignored. Did you mean "file"? Rename it, or remove it.',
        '[mockyard] <fixtures>/vitest/warnings.json#/v1~1gone/file: the data file "gone.json" does not exist in <fixtures>/examples/data. Add the file (requests for it answer 404 until then), or fix the name.',
        '[mockyard] no route answers GET /v1/none: no route has the path /v1/none.',
        'Closest routes:',
        '  - v1/gone (GET, POST, PUT, PATCH, DELETE)',
        '  - v1/here (GET, POST, PUT, PATCH, DELETE)',
        '  - v1/users (no method)',
        'Add a route to your routes file, for example "v1/none": { "file": "none.json" }.',
        'The request went to http://127.0.0.1:9, a server on this machine: in process, mockyard answers every host. If it is your own server (one a test started), let its requests through: mocks.use(http.all(\'http://127.0.0.1:9/*\', () => passthrough())), with http and passthrough from msw.',
        '[mockyard] no route answers GET /v1/users: v1/users answers no method: it has no file, url or status and no method key. Did you mean "file" for "fiel"?',
        'Rename "fiel" to "file" in "v1/users" in your routes file.',
        'The request went to http://127.0.0.1:9, a server on this machine: in process, mockyard answers every host. If it is your own server (one a test started), let its requests through: mocks.use(http.all(\'http://127.0.0.1:9/*\', () => passthrough())), with http and passthrough from msw.',
      ].join('\n'),
    )
  }, 60_000)

  it('reportUnused: one warning after the file, naming the routes and methods no test used; expectCalled counts per test', async () => {
    const result = await runFixture('unused.fixture.ts')
    expect(result.stdout).toMatch(/Tests\s+2 passed/)
    expect(result.stderr).toContain('[mockyard] 2 routes were not used by any test in this file (reportUnused):\n  - DELETE v1/orders\n  - v1/unused (any method)\nRemove them if no test needs them, or add a test that uses them.')
    expect(result.stderr.split('reportUnused').length - 1).toBe(1)
    expect(result.status).toBe(0)
  })

  it("with 'bypass' go to the real network", async () => {
    const server = createServer((_req, res) => res.end('real'))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const result = await runFixture('bypass.fixture.ts', { REAL_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/none` })
      expect(result.stdout + result.stderr).toContain('1 passed')
      expect(result.status).toBe(0)
    } finally {
      server.close()
    }
  })
})
