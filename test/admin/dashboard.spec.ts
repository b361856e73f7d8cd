/**
 * The dashboard in a real browser (docs/behaviour.md, "The dashboard"): each test starts its own
 * listener on the example config, drives requests at it from Node and reads what the page shows.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test as base, expect, type Page } from '@playwright/test'
import { startMockServer, type RunningServer } from 'mockyard/node'

const examples = fileURLToPath(new URL('../fixtures/examples/', import.meta.url))

const test = base.extend<{ listener: RunningServer }>({
  listener: async ({}, use) => {
    const server = await startMockServer({ routes: examples + 'routes.json', data: examples + 'data' })
    await use(server)
    await server.stop()
  },
})

const send = (server: RunningServer, path: string, init: RequestInit & { session?: string } = {}) =>
  fetch(server.url + path, { ...init, headers: { ...(init.headers as Record<string, string>), ...(init.session ? { 'x-mockyard-session': init.session } : {}) } })

/** The request rows' cells as the page shows them: method, path, status, answered by. */
async function shownRows(page: Page): Promise<string[]> {
  return page.locator('#requests tr.row').evaluateAll((rows) =>
    rows.map((row) => [...row.querySelectorAll('td.method, td.path, td.status, td.by')].map((td) => td.textContent!.trim()).join(' | ')),
  )
}

async function open(page: Page, server: RunningServer) {
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(server.url + '/__mockyard/')
  await expect(page.locator('#live')).toHaveText('live')
  return errors
}

test('shows the request log: matched, unmatched with the explanation, a sequence, two sessions', async ({ page, listener }) => {
  await send(listener, '/v1/claims?status=open', { session: 'alpha' })
  for (let i = 0; i < 3; i++) await send(listener, '/v1/jobs/42', { session: 'beta' })
  await send(listener, '/v1/claimz', { session: 'alpha' })
  const errors = await open(page, listener)
  await expect(page.locator('#requests tr.row')).toHaveCount(5)
  expect(await shownRows(page)).toEqual([
    'GET | /v1/claimz | 404 | unmatched',
    'GET | /v1/jobs/42 | 200 | v1/jobs/42 · get[0].response[1]',
    'GET | /v1/jobs/42 | 202 | v1/jobs/42 · get[0].response[0]',
    'GET | /v1/jobs/42 | 202 | v1/jobs/42 · get[0].response[0]',
    'GET | /v1/claims?status=open | 200 | v1/claims · get[0]',
  ])
  const unmatched = page.locator('#requests tr.row.unmatched')
  await expect(unmatched).toHaveCount(1)
  const explanation = page.locator('#requests tr.explain pre')
  await expect(explanation).toContainText('no route answers GET /v1/claimz: no route has the path /v1/claimz.')
  await expect(explanation).toContainText('- v1/claims (GET, POST, PUT, PATCH, DELETE)')
  await expect(page.locator('#requests tr.row').first().locator('td.session')).toHaveAttribute('title', 'alpha')
  await expect(page.locator('#requests tr.row').nth(1).locator('td.file')).toHaveText('job-done.json')
  await expect(page.locator('#count')).toContainText('5 of 5 requests shown; 1 unmatched')
  expect(errors).toEqual([])
})

test('new requests appear without a reload', async ({ page, listener }) => {
  await open(page, listener)
  await expect(page.locator('#empty')).toBeVisible()
  await send(listener, '/v1/users', { session: 'live-1' })
  await expect(page.locator('#requests tr.row')).toHaveCount(1, { timeout: 5000 })
  await send(listener, '/v1/nope')
  await expect(page.locator('#requests tr.row')).toHaveCount(2, { timeout: 5000 })
  expect(await shownRows(page)).toEqual(['GET | /v1/nope | 404 | unmatched', 'GET | /v1/users | 200 | v1/users · default'])
  // The new session is offered by the filter.
  await expect(page.locator('#f-session option[value="live-1"]')).toHaveCount(1)
})

test('a proxied request: its row says proxied, its detail shows the target\'s headers, the options name the target', async ({ page }) => {
  const target = createServer((req, res) => {
    req.resume()
    res.writeHead(200, { 'content-type': 'application/json', 'x-real': 'yes' }).end('{"real":true}')
  })
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve))
  const server = await startMockServer({ routes: examples + 'routes.json', data: examples + 'data', proxy: `http://127.0.0.1:${(target.address() as AddressInfo).port}` })
  try {
    await open(page, server)
    await send(server, '/v1/elsewhere')
    await send(server, '/v1/users')
    await expect.poll(() => shownRows(page), { timeout: 5000 }).toEqual(['GET | /v1/users | 200 | v1/users · default', 'GET | /v1/elsewhere | 200 | proxied'])
    await page.locator('#requests tr.row').nth(1).click()
    await expect(page.locator('#detail')).toContainText('x-real')
    // The options in force name the proxy target.
    await page.getByRole('tab', { name: 'Config' }).click()
    await expect(page.locator('#config pre').first()).toContainText(`"proxy": "http://127.0.0.1:${(target.address() as AddressInfo).port}"`)
  } finally {
    await server.stop()
    target.close()
  }
})

test('filters: session, path text, status class, unmatched only', async ({ page, listener }) => {
  await send(listener, '/v1/users', { session: 'alpha' })
  await send(listener, '/v1/claims?status=open', { session: 'beta' })
  await send(listener, '/v1/orders', { method: 'DELETE', session: 'beta' })
  await send(listener, '/v1/help', { session: 'alpha', redirect: 'manual' })
  await send(listener, '/v1/claimz', { session: 'beta' })
  await open(page, listener)
  await expect(page.locator('#requests tr.row')).toHaveCount(5)

  await page.selectOption('#f-session', 'beta')
  expect(await shownRows(page)).toEqual(['GET | /v1/claimz | 404 | unmatched', 'DELETE | /v1/orders | 204 | v1/orders · default', 'GET | /v1/claims?status=open | 200 | v1/claims · get[0]'])

  await page.fill('#f-path', 'claim')
  expect(await shownRows(page)).toEqual(['GET | /v1/claimz | 404 | unmatched', 'GET | /v1/claims?status=open | 200 | v1/claims · get[0]'])

  await page.check('#f-unmatched')
  expect(await shownRows(page)).toEqual(['GET | /v1/claimz | 404 | unmatched'])

  await page.uncheck('#f-unmatched')
  await page.fill('#f-path', '')
  await page.selectOption('#f-session', '*')
  await page.selectOption('#f-status', '3')
  expect(await shownRows(page)).toEqual(['GET | /v1/help | 302 | v1/help · default'])
  await page.selectOption('#f-status', '2')
  await expect(page.locator('#requests tr.row')).toHaveCount(3)
})

test('a request opened in full, with the keyboard: headers redacted, body, response', async ({ page, listener }) => {
  await send(listener, '/v1/payments', {
    method: 'POST',
    session: 'kb',
    headers: { 'content-type': 'application/json', authorization: 'Bearer secret-token' },
    body: JSON.stringify({ method: { type: 'card' } }),
  })
  await send(listener, '/v1/report', { method: 'PUT', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array([0x25, 0x50, 0xff, 0xfe, 0x00, 0x01]) })
  await open(page, listener)
  await expect(page.locator('#requests tr.row')).toHaveCount(2)

  // Tab reaches the rows; arrows move between them; Enter opens one.
  const rows = page.locator('#requests tr.row')
  await rows.first().focus()
  await page.keyboard.press('ArrowDown')
  await expect(rows.nth(1)).toBeFocused()
  const outline = await rows.nth(1).evaluate((row) => getComputedStyle(row).outlineStyle)
  expect(outline).not.toBe('none')
  await page.keyboard.press('Enter')
  const detail = page.locator('#detail')
  await expect(detail).toBeVisible()
  await expect(detail.locator('h2')).toHaveText('POST /v1/payments')
  await expect(detail).toContainText('v1/payments · post[0]')
  await expect(detail.locator('table.headers').first()).toContainText('authorization<redacted>')
  await expect(detail.locator('table.headers').first()).not.toContainText('secret-token')
  await expect(detail.locator('pre.body').first()).toHaveText('{"method":{"type":"card"}}')
  await expect(detail).toContainText('Response 200')
  await expect(detail.locator('table.headers').nth(1)).toContainText('content-typeapplication/json; charset=utf-8')

  await page.keyboard.press('Escape')
  await expect(detail).toBeHidden()
  await expect(rows.nth(1)).toBeFocused()

  // A binary body is shown as a size.
  await rows.first().focus()
  await page.keyboard.press('Enter')
  await expect(detail.locator('h2')).toHaveText('PUT /v1/report')
  await expect(detail).toContainText('binary body (application/pdf), 6 bytes')
  await detail.getByRole('button', { name: 'Close the request details' }).click()
  await expect(detail).toBeHidden()
})

test('a multipart body opened in full lists its fields and the file names the scoring reads', async ({ page, listener }) => {
  const form = new FormData()
  form.append('note', 'scan')
  form.append('doc', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe])], { type: 'image/png' }), 'logo.png')
  await send(listener, '/v1/upload', { method: 'POST', body: form })
  await open(page, listener)
  await page.locator('#requests tr.row').click()
  await expect(page.locator('#detail pre.body')).toHaveText('multipart form, 2 parts:\nnote = scan\ndoc: file "logo.png" (image/png)')
})

test('the route table: entries, conditions, the selected session\'s sequence position, overrides', async ({ page, listener }) => {
  await send(listener, '/v1/jobs/42', { session: 'seq' })
  await send(listener, '/v1/jobs/42', { session: 'seq' })
  await fetch(listener.url + '/__mockyard/routes', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ 'v1/flags': { file: 'users.json' } }) })
  await send(listener, '/v1/jobs/42', { session: 'seq' })
  await open(page, listener)
  await page.getByRole('tab', { name: 'Routes' }).click()
  const jobs = page.getByRole('article', { name: 'route v1/jobs/42' })
  await expect(jobs).toBeVisible()
  // Without a session selected: requests without one, which never reached the sequence.
  await expect(jobs.locator('li.next')).toHaveText('job-running.json · 202 ×2')
  await page.selectOption('#f-session', 'seq')
  await expect(page.locator('#routes-head')).toContainText('sequence positions of session seq')
  // The override of another route (v1/flags) kept this sequence's position: 3 served, it starts over.
  await expect(jobs).toContainText('served 3')
  await expect(jobs.locator('li.next')).toHaveText('job-running.json · 202 ×2')
  // The overview follows the requests live: the two 202s served again, the 200 comes next.
  await send(listener, '/v1/jobs/42', { session: 'seq' })
  await send(listener, '/v1/jobs/42', { session: 'seq' })
  await expect(jobs).toContainText('served 5', { timeout: 5000 })
  await expect(jobs.locator('li.next')).toHaveText('job-done.json · 200')

  const claims = page.getByRole('article', { name: 'route v1/claims' })
  await expect(claims).toContainText('param status = open')
  await expect(claims).toContainText('param year = {"pattern":"^20[0-9]{2}$"}')
  await expect(page.getByRole('article', { name: 'route v1/profile' })).toContainText('header X-Role = admin')
  await expect(page.getByRole('article', { name: 'route v1/flags' })).toContainText('override (everyone)')
  await expect(page.locator('#routes-head')).toContainText('overrides for everyone: v1/flags')
})

test('reset: the selected session, then everything', async ({ page, listener }) => {
  await send(listener, '/v1/users', { session: 'keep' })
  await send(listener, '/v1/jobs/42', { session: 'drop' })
  await send(listener, '/v1/jobs/42', { session: 'drop' })
  await open(page, listener)
  await expect(page.locator('#requests tr.row')).toHaveCount(3)
  await expect(page.getByRole('button', { name: /^Reset session/ })).toBeDisabled()
  await page.selectOption('#f-session', 'drop')
  await page.getByRole('button', { name: 'Reset session drop' }).click()
  await page.selectOption('#f-session', '*')
  await expect(page.locator('#requests tr.row')).toHaveCount(1)
  expect(listener.requests().map((r) => r.session)).toEqual(['keep'])
  // The session's sequence started over.
  expect((await send(listener, '/v1/jobs/42', { session: 'drop' })).status).toBe(202)
  await expect(page.locator('#requests tr.row')).toHaveCount(2)

  await page.getByRole('button', { name: 'Reset all' }).click()
  await expect(page.locator('#requests tr.row')).toHaveCount(0)
  await expect(page.locator('#empty')).toBeVisible()
  expect(listener.requests()).toEqual([])

  // A request open in full when a reset from elsewhere (a test's) takes it from the log: its detail closes with it.
  await send(listener, '/v1/users', { session: 'keep' })
  await page.locator('#requests tr.row').first().click()
  await expect(page.locator('#detail')).toBeVisible()
  await fetch(listener.url + '/__mockyard/reset', { method: 'POST' })
  await expect(page.locator('#requests tr.row')).toHaveCount(0)
  await expect(page.locator('#detail')).toBeHidden()
})

test('options and files, and readable on a narrow window', async ({ page, listener }) => {
  await send(listener, '/v1/users')
  await page.setViewportSize({ width: 400, height: 800 })
  await open(page, listener)
  await expect(page.locator('#requests tr.row')).toHaveCount(1)
  // Nothing but the table scrolls sideways: the filters and buttons fit.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  expect(overflow).toBeLessThanOrEqual(0)
  await expect(page.getByRole('button', { name: 'Reset all' })).toBeInViewport()
  // A phone-sized window: what answered, and why nothing did, stay in view without scrolling.
  await send(listener, '/v1/claimz-with-a-long-name-that-needs-wrapping')
  await page.setViewportSize({ width: 360, height: 800 })
  await expect(page.locator('#requests tr.row')).toHaveCount(2)
  await expect(page.locator('#requests tr.row').first().locator('td.by')).toBeInViewport({ ratio: 1 })
  const explanation = page.locator('#requests tr.explain pre').first()
  expect(await explanation.evaluate((pre) => pre.scrollWidth - pre.clientWidth)).toBeLessThanOrEqual(0)
  expect(await explanation.evaluate((pre) => pre.getBoundingClientRect().right)).toBeLessThanOrEqual(360)
  await page.getByRole('tab', { name: 'Config' }).click()
  await expect(page.locator('#config')).toContainText(examples + 'routes.json')
  await expect(page.locator('#config')).toContainText('Last reload')
  await expect(page.locator('#config pre').first()).toContainText('"latency": 0')
  await expect(page.locator('#config pre').nth(1)).toContainText('"data": ')
})

test('the request detail shows the response body: text, a binary file as its type and size', async ({ page, listener }) => {
  await send(listener, '/v1/payments', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: { type: 'card' } }) })
  await send(listener, '/v1/report')
  await open(page, listener)
  const rows = page.locator('#requests tr.row')
  await expect(rows).toHaveCount(2)
  const detail = page.locator('#detail')
  await rows.nth(1).click()
  await expect(detail.locator('h2')).toHaveText('POST /v1/payments')
  await expect(detail.locator('h3').last()).toHaveText('Response body')
  await expect(detail.locator('pre.body').last()).toHaveText('{"file":"payment-card.json"}')
  await rows.first().click()
  await expect(detail.locator('h2')).toHaveText('GET /v1/report')
  await expect(detail).toContainText(/binary body \(application\/pdf\), \d+ bytes/)
})

test('an NDJSON or YAML body reads as text, not as a binary body', async ({ page, listener }) => {
  await send(listener, '/v1/users', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: '{"a":1}\n{"a":2}\n' })
  await send(listener, '/v1/users', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: 'a: 1\n' })
  await open(page, listener)
  const rows = page.locator('#requests tr.row')
  await expect(rows).toHaveCount(2)
  const detail = page.locator('#detail')
  await rows.nth(1).click()
  await expect(detail.locator('pre.body').first()).toContainText('{"a":1}')
  await expect(detail).not.toContainText('binary body')
  await rows.first().click()
  await expect(detail.locator('pre.body').first()).toContainText('a: 1')
  await expect(detail).not.toContainText('binary body')
})

test('"all sessions" names the sessions with overrides of their own', async ({ page, listener }) => {
  await fetch(listener.url + '/__mockyard/routes', {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-mockyard-session': 'ov' },
    body: JSON.stringify({ 'v1/users': { status: 500 } }),
  })
  await send(listener, '/v1/users', { session: 'ov' })
  await open(page, listener)
  await page.getByRole('tab', { name: 'Routes' }).click()
  const head = page.locator('#routes-head')
  await expect(head).toContainText('session with overrides of their own: ov')
  await expect(head).not.toContainText('no overrides in force')
  await page.selectOption('#f-session', 'ov')
  await expect(head).toContainText('overrides of this session: v1/users')
  await expect(page.getByRole('article', { name: 'route v1/users' })).toContainText('override (this session)')
})

test('the request filters show on the request list only; the session also on the route table', async ({ page, listener }) => {
  await send(listener, '/v1/users', { session: 'f' })
  await open(page, listener)
  const path = page.locator('#f-path')
  const status = page.locator('#f-status')
  const unmatched = page.locator('#f-unmatched')
  const session = page.locator('#f-session')
  for (const control of [path, status, unmatched, session]) await expect(control).toBeVisible()
  await page.getByRole('tab', { name: 'Routes' }).click()
  for (const control of [path, status, unmatched]) await expect(control).toBeHidden()
  await expect(session).toBeVisible()
  await expect(page.getByRole('button', { name: 'Reset all' })).toBeVisible()
  await page.getByRole('tab', { name: 'Config' }).click()
  for (const control of [path, status, unmatched, session]) await expect(control).toBeHidden()
  await expect(page.getByRole('button', { name: 'Reset all' })).toBeVisible()
  await page.getByRole('tab', { name: 'Requests' }).click()
  for (const control of [path, status, unmatched, session]) await expect(control).toBeVisible()
})

test('at phone width (390x844): the session column stays, paths wrap between segments, a tapped row opens in view', async ({ page, listener }) => {
  const long = '/v1/claims/with-a-rather-long-segment/and-another-segment/and-one-more?status=open&owner=someone'
  await send(listener, long, { session: 'phone-test' })
  for (let i = 0; i < 30; i++) await send(listener, `/v1/users?page=${i}`, { session: 'phone-test' })
  await page.setViewportSize({ width: 390, height: 844 })
  await open(page, listener)
  const rows = page.locator('#requests tr.row')
  await expect(rows).toHaveCount(31)
  await expect(page.locator('#requests th.col-session')).toBeVisible()
  await expect(rows.first().locator('td.session')).toBeVisible()
  await expect(rows.first().locator('td.session')).toHaveText('phone-test')

  // The cell wraps between segments (after '/', '?', '&', '=', or a hyphen), never inside a word.
  const cell = rows.last().locator('td.path')
  await expect(cell).toHaveText(long)
  const { midWord, lines } = await cell.evaluate((td) => {
    const midWord: string[] = []
    const tops = new Set<number>()
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      let previousTop: number | undefined
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange()
        range.setStart(node, i)
        range.setEnd(node, i + 1)
        const top = Math.round(range.getBoundingClientRect().top)
        tops.add(top)
        const before = node.data[i - 1]
        if (previousTop !== undefined && top !== previousTop && /[A-Za-z0-9]/.test(before!) && /[A-Za-z0-9]/.test(node.data[i]!)) {
          midWord.push(node.data.slice(Math.max(0, i - 6), i) + '|' + node.data.slice(i, i + 6))
        }
        previousTop = top
      }
    }
    return { midWord, lines: tops.size }
  })
  expect(midWord).toEqual([])
  expect(lines).toBeGreaterThan(1)

  // The details go under the list: a tap on the last row brings them into view.
  await rows.last().scrollIntoViewIfNeeded()
  await rows.last().click()
  const detail = page.locator('#detail')
  await expect(detail.locator('h2')).toHaveText(`GET ${long}`)
  await expect(detail.locator('h2')).toBeInViewport()
  await expect(detail).toContainText('Response body')
})

test('a live reload that breaks the config shows a banner; a good one takes it away', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-dashboard-'))
  cpSync(examples, dir, { recursive: true })
  const quiet = () => undefined
  const logProvider = () => ({ log: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet })
  const server = await startMockServer({ routes: join(dir, 'routes.json'), data: join(dir, 'data'), watch: true, logProvider })
  try {
    await open(page, server)
    await expect(page.locator('#banner')).toBeHidden()
    writeFileSync(join(dir, 'routes.json'), '{ "v1/users": { "file": ')
    await expect(page.locator('#banner')).toContainText('the last good routes are being served', { timeout: 10_000 })
    await expect(page.locator('#banner pre')).toContainText(join(dir, 'routes.json'))
    await page.getByRole('tab', { name: 'Config' }).click()
    await expect(page.locator('#config')).toContainText('failed')
    writeFileSync(join(dir, 'routes.json'), JSON.stringify({ 'v1/users': { file: 'users.json' } }))
    await expect(page.locator('#banner')).toBeHidden({ timeout: 10_000 })
    await expect(page.locator('#config')).toContainText('ok')
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('the listener of the Playwright globalSetup serves it too', async ({ page }) => {
  await page.goto(process.env.MOCKYARD_URL + '/__mockyard/')
  await expect(page.locator('#live')).toHaveText('live')
  await page.getByRole('tab', { name: 'Routes' }).click()
  await expect(page.getByRole('article', { name: 'route v1/jobs/42' })).toBeVisible()
})

// The README's picture: `MOCKYARD_SCREENSHOT=docs/dashboard.png npx playwright test --project listener dashboard`.
test('screenshot for the README', async ({ page, listener }) => {
  test.skip(!process.env.MOCKYARD_SCREENSHOT, 'set MOCKYARD_SCREENSHOT to the output path')
  await send(listener, '/v1/users', { session: 'checkout-test', headers: { authorization: 'Bearer x' } })
  await send(listener, '/v1/claims?status=open', { session: 'checkout-test' })
  for (let i = 0; i < 3; i++) await send(listener, '/v1/jobs/42', { session: 'polling-test' })
  await send(listener, '/v1/payments', { method: 'POST', session: 'checkout-test', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: { type: 'card' } }) })
  await send(listener, '/v1/claims/open', { session: 'checkout-test' })
  await send(listener, '/v1/orders', { method: 'DELETE', session: 'polling-test' })
  await page.setViewportSize({ width: 1200, height: 600 })
  await open(page, listener)
  await expect(page.locator('#requests tr.row')).toHaveCount(8)
  await page.locator('#requests tr.row', { hasText: '/v1/payments' }).click()
  await expect(page.locator('#detail pre.body')).toBeVisible()
  await page.screenshot({ path: process.env.MOCKYARD_SCREENSHOT!, type: 'png' })
})

test('faults: the request row and detail show the fault, the route table each answer\'s (docs/behaviour.md, "Faults")', async ({ page, listener }) => {
  const routes = { 'v1/flaky': { fault: 'reset' }, 'v1/retry': { get: [{ response: [{ fault: 'reset' }, { status: 503 }, { file: 'users.json' }] }] } }
  await fetch(listener.url + '/__mockyard/routes', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(routes) })
  await send(listener, '/v1/flaky').catch(() => undefined)
  const errors = await open(page, listener)
  expect(await shownRows(page)).toEqual(['GET | /v1/flaky | fault: reset | v1/flaky · default'])
  await page.locator('#requests tr.row').first().click()
  await expect(page.getByText('no response: the fault "reset" was played')).toBeVisible()
  await page.getByRole('tab', { name: 'Routes' }).click()
  await expect(page.getByRole('article', { name: 'route v1/flaky' })).toContainText('fault: reset')
  await expect(page.getByRole('article', { name: 'route v1/retry' }).locator('li')).toHaveText(['fault: reset', '(no file) · 503', 'users.json · 200'])
  expect(errors).toEqual([])
})

test('resets while requests keep coming: every record is shown once', async ({ page, listener }) => {
  await open(page, listener)
  let sending = true
  const traffic = Promise.all([1, 2, 3].map(async () => { while (sending) await send(listener, '/v1/users') }))
  for (let i = 0; i < 8; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    await fetch(listener.url + '/__mockyard/reset', { method: 'POST' })
  }
  await new Promise((resolve) => setTimeout(resolve, 150))
  sending = false
  await traffic
  const records = listener.requests().map((record) => record.id)
  const newest = [...records].sort((a, b) => a - b).slice(-500) // (the page keeps the newest 500)
  // The page hears of new records and of a reset once per batch (250 ms), and a reset costs it a
  // reload: here it may still be a batch and a reload behind the log. The rows themselves are
  // awaited (a count would pass at once whenever there are 500 or more, stale or not), and must
  // stay so.
  const shown = () => page.locator('#requests tr.row').evaluateAll((rows) => rows.map((row) => Number((row as HTMLElement).dataset.id)).sort((a, b) => a - b))
  await expect.poll(shown, { timeout: 10_000 }).toEqual(newest)
  await new Promise((resolve) => setTimeout(resolve, 500))
  expect(await shown()).toEqual(newest)
})

test('the first load answered after the stream\'s own reload does not hide what came between', async ({ page, listener }) => {
  // The page reads the state as it opens, and again on the event stream's `hello`; a request
  // logged after the first read and before the stream joined is in the second read only (the
  // stream sends what came after it joined). The first answer, held until the second is in,
  // must not replace it.
  let reads = 0
  let answered = 0
  page.on('requestfinished', (request) => void (request.url().endsWith('/dashboard/state') && answered++))
  let firstRead!: () => void
  const read = new Promise<void>((resolve) => (firstRead = resolve))
  let releaseFirst!: () => void
  const held = new Promise<void>((resolve) => (releaseFirst = resolve))
  await page.route('**/dashboard/state', async (route) => {
    if (reads++ > 0) return route.continue()
    const response = await route.fetch()
    const body = await response.body()
    firstRead()
    await held
    await route.fulfill({ status: response.status(), headers: response.headers(), body })
  })
  let releaseEvents!: () => void
  const eventsHeld = new Promise<void>((resolve) => (releaseEvents = resolve))
  await page.route('**/dashboard/events', async (route) => {
    await eventsHeld
    await route.continue()
  })
  await page.goto(listener.url + '/__mockyard/')
  await read
  await send(listener, '/v1/users')
  releaseEvents()
  await expect(page.locator('#live')).toHaveText('live')
  await new Promise((resolve) => setTimeout(resolve, 500))
  releaseFirst()
  await expect.poll(() => answered).toBe(2)
  await new Promise((resolve) => setTimeout(resolve, 300))
  await expect(page.locator('#requests tr.row')).toHaveCount(1)
  expect(await shownRows(page)).toEqual(['GET | /v1/users | 200 | v1/users · default'])
})
