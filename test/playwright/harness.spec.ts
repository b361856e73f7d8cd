import { test as base, expect } from '@playwright/test'
import { mockyardFixtures } from 'mockyard/playwright'

const test = base.extend(mockyardFixtures())

// A loopback origin other than the listener's: cross-origin, and no private-network prompt.
test.beforeEach(async ({ page: p, mockyard }) => {
  await p.goto(`${process.env.APP_URL}?api=${encodeURIComponent(mockyard.url)}`)
})

test('the page calls the listener cross-origin with credentials and the log records it', async ({ page: p, mockyard }) => {
  expect(await p.evaluate(() => (window as any).call('/v1/claims?status=open'))).toBe('200 claims-open.json ')
  await expect(p.locator('#out li')).toHaveText(['200 claims-open.json '])
  const logged = await mockyard.waitForRequest((r) => r.url.endsWith('/v1/claims?status=open'))
  expect(logged).toMatchObject({ method: 'GET', route: 'v1/claims', entry: 'get[0]', status: 200, session: mockyard.session })
  expect(logged.headers.origin).toBe(new URL(process.env.APP_URL!).origin)
})

test('a POST with a JSON body is scored and recorded with its body', async ({ page: p, mockyard }) => {
  const shown = await p.evaluate(() =>
    (window as any).call('/v1/payments', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: { type: 'card' } }) }),
  )
  expect(shown).toBe('200 payment-card.json ')
  const [request] = await mockyard.requests()
  expect(request).toMatchObject({ method: 'POST', body: '{"method":{"type":"card"}}', route: 'v1/payments' })
})

// The same sequence, advanced by several tests in parallel workers: sessions keep them apart.
for (const n of [1, 2, 3, 4, 5, 6]) {
  test(`session ${n}: the sequence and the overrides belong to this test alone`, async ({ page: p, mockyard }) => {
    await mockyard.useRoutes({ 'v1/who': { file: 'users.json', responseHeader: { 'x-test': String(n) } } })
    const seen: string[] = []
    for (let i = 0; i < 3; i++) seen.push(await p.evaluate(() => (window as any).call('/v1/jobs/42')))
    expect(seen).toEqual(['202 job-running.json /v1/jobs/42', '202 job-running.json /v1/jobs/42', '200 job-done.json '])
    const who = await p.evaluate(() => (window as any).header('/v1/who', 'x-test'))
    expect(who).toBe(String(n))
    const requests = await mockyard.requests()
    expect(requests.map((r) => r.url.replace(mockyard.url, ''))).toEqual(['/v1/jobs/42', '/v1/jobs/42', '/v1/jobs/42', '/v1/who'])
    expect(new Set(requests.map((r) => r.session))).toEqual(new Set([mockyard.session]))
  })
}

test('a web page cannot drive the admin endpoints', async ({ page: p, mockyard }) => {
  const status = await p.evaluate(async (url) => {
    try {
      return (await fetch(url + '/__mockyard/requests')).status
    } catch {
      return 'blocked'
    }
  }, mockyard.url)
  // Refused with 403 and no CORS headers, so the page cannot even read the answer.
  expect(status).toBe('blocked')
})
