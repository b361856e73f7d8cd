/**
 * docs/behaviour.md, "Sessions across processes": `propagateSessions()` beside mockyard's own
 * in-process interception (`setupMockServer`, which patches `fetch` and `http`): requests the
 * interception answers are answered in process, those it lets through (`'bypass'`) still reach
 * the listener with the incoming request's session, by `fetch` and by `http.get`.
 */
import { once } from 'node:events'
import http, { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { propagateSessions, startMockServer, type PropagatedSessions, type RunningServer } from 'mockyard/node'
import { createAdminClient } from 'mockyard/playwright'
import { setupMockServer } from 'mockyard/vitest'
import { captureLogs, named, removeTempDirs, writeMocks } from '../support/routes.js'

const inProcess = writeMocks({ 'v1/in-process': { file: 'in-process.json' } }, named('in-process.json'))
setupMockServer({ routes: inProcess.routes, data: inProcess.data, onUnhandledRequest: 'bypass' })

let listener: RunningServer
let app: Server
let appUrl = ''
let propagation: PropagatedSessions

function httpGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve(body))
      })
      .on('error', reject)
  })
}

beforeAll(async () => {
  const mocks = writeMocks({ 'v1/who': { file: 'shared.json' } }, named('shared.json', 'mine.json'))
  listener = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
  await createAdminClient(listener.url, { session: 'mine' }).useRoutes({ 'v1/who': { file: 'mine.json' } })
  propagation = propagateSessions({ targets: listener.url })
  app = createServer(async (req, res) => {
    const to = new URL(req.url ?? '/', 'http://app').searchParams.get('to')!
    const via = new URL(req.url ?? '/', 'http://app').searchParams.get('via')
    res.end(via === 'http' ? await httpGet(to) : await (await fetch(to)).text())
  })
  app.listen(0, '127.0.0.1')
  await once(app, 'listening')
  appUrl = `http://127.0.0.1:${(app.address() as { port: number }).port}`
})

afterAll(async () => {
  propagation.dispose()
  app.close()
  await listener.stop()
  removeTempDirs()
})

const render = async (via: string, to: string) =>
  (JSON.parse(await (await fetch(`${appUrl}/?${new URLSearchParams({ via, to })}`, { headers: { cookie: 'mockyard-session=mine' } })).text()) as { file: string }).file

it('requests let through by the in-process interception reach the listener with the session; the others are answered in process', async () => {
  expect(await render('fetch', `${listener.url}/v1/who`)).toBe('mine.json')
  expect(await render('http', `${listener.url}/v1/who`)).toBe('mine.json')
  expect(await render('fetch', 'http://api.test/v1/in-process')).toBe('in-process.json')
  expect(await render('http', 'http://api.test/v1/in-process')).toBe('in-process.json')
  expect((await listener.requests({ path: '/v1/who' })).map((r) => r.session)).toEqual(['mine', 'mine'])
})
