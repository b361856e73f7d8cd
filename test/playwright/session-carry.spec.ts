/**
 * docs/behaviour.md, "Sessions across processes": the `page` fixture gives the test's session
 * as the `x-mockyard-session` header to the listener's origin only, and as the
 * `mockyard-session` cookie for the listener's and the app's (`baseURL`) origins, so a
 * navigation to an app server carries it (where `propagateSessions()` passes it on), and no
 * other origin gets the header.
 */
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { test as base, expect } from '@playwright/test'
import { createAdminClient, mockyardFixtures } from 'mockyard/playwright'

interface Recorder {
  url: string
  seen: { path: string; headers: IncomingHttpHeaders }[]
  server: Server
}

/** A server that records the headers of what it gets; pages and CORS answers for anyone. */
async function recorder(host: string): Promise<Recorder> {
  const seen: Recorder['seen'] = []
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers })
    res.setHeader('access-control-allow-origin', req.headers.origin ?? '*')
    res.setHeader('access-control-allow-credentials', 'true')
    res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? '*')
    res.setHeader('content-type', req.url?.startsWith('/page') ? 'text/html' : 'application/json')
    res.end(req.url?.startsWith('/page') ? '<!doctype html><p>app</p>' : '{}')
  })
  server.listen(0, host)
  await once(server, 'listening')
  return { url: `http://${host}:${(server.address() as { port: number }).port}`, seen, server }
}

const test = base.extend<{ app: Recorder; other: Recorder }>({
  app: async ({}, use) => {
    const app = await recorder('127.0.0.1')
    await use(app)
    app.server.closeAllConnections()
    app.server.close()
  },
  // Another site: another host name, so neither the header nor the cookie may reach it.
  other: async ({}, use) => {
    const other = await recorder('localhost')
    await use(other)
    other.server.closeAllConnections()
    other.server.close()
  },
  baseURL: async ({ app }, use) => use(app.url),
}).extend(mockyardFixtures())

test('a navigation to the app carries the session as the cookie, not as the header', async ({ page, mockyard, app }) => {
  await page.goto('/page')
  const [navigation] = app.seen.filter((r) => r.path === '/page')
  expect(navigation!.headers.cookie).toContain(`mockyard-session=${mockyard.session}`)
  expect(navigation!.headers['x-mockyard-session']).toBeUndefined()
})

test('requests to the listener carry the header, also without credentials; other origins get neither', async ({ page, mockyard, other }) => {
  await page.goto('/page')
  await page.evaluate(async ([listener, elsewhere]) => {
    await fetch(`${listener}/v1/claims?status=open`)
    await fetch(`${elsewhere}/api`, { credentials: 'include' })
  }, [mockyard.url, other.url] as const)
  expect(await mockyard.requests({ path: '/v1/claims' })).toMatchObject([{ session: mockyard.session }])
  const [call] = other.seen.filter((r) => r.path === '/api')
  expect(call!.headers['x-mockyard-session']).toBeUndefined()
  expect(call!.headers.cookie ?? '').not.toContain('mockyard-session')
  // The request reached the other origin without a preflight: no custom header was added.
  expect(other.seen.filter((r) => r.path === '/api')).toHaveLength(1)
})

test('a session header the page sets itself wins', async ({ page, mockyard }) => {
  await page.goto('/page')
  await page.evaluate((listener) => fetch(`${listener}/v1/claims?status=open`, { headers: { 'x-mockyard-session': 'chosen-by-page' } }), mockyard.url)
  // Without a session, the admin client sees every session's requests.
  expect(await createAdminClient(mockyard.url).requests({ path: '/v1/claims', session: 'chosen-by-page' })).toHaveLength(1)
  expect(await mockyard.requests({ path: '/v1/claims' })).toHaveLength(0)
})
