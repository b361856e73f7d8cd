/**
 * One request path for every node surface: the engine decides CORS and preflights
 * (docs/behaviour.md, "CORS"), and a request is recorded once, with the status it was sent.
 */
import http from 'node:http'
import { http as mswHttp, HttpResponse } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { captureLogs, named, removeTempDirs, writeMocks } from '../support/routes.js'

const ORIGIN = 'http://app.test'

describe('the listener writes what the engine decided', () => {
  let server: RunningServer

  beforeAll(async () => {
    const mocks = writeMocks({ 'v1/users': { file: 'users.json' } }, named('users.json'))
    server = await startMockServer({
      routes: mocks.routes,
      logProvider: captureLogs().logProvider,
      handlers: [mswHttp.get('*/v1/handled', () => HttpResponse.json({ ok: true }, { headers: { 'x-handler': 'yes' } }))],
    })
  })

  afterAll(async () => {
    await server.stop()
    removeTempDirs()
  })

  it("an msw handler's answer carries the CORS headers, its own headers exposed", async () => {
    const res = await fetch(`${server.url}/v1/handled`, { headers: { origin: ORIGIN } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-handler')).toBe('yes')
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(res.headers.get('access-control-expose-headers')).toContain('x-handler')
  })

  it('a 404 is recorded once, with its status and headers, before a waiter hears of it', async () => {
    const waited = server.waitForRequest((record) => record.url.endsWith('/v1/nothing'), { timeout: 5000 })
    const res = await fetch(`${server.url}/v1/nothing`, { headers: { origin: ORIGIN } })
    expect(res.status).toBe(404)
    const record = await waited
    expect(record).toMatchObject({ status: 404, matched: false })
    expect(record.responseHeaders?.['access-control-allow-origin']).toBe(ORIGIN)
    expect(record.explanation).toBe(
      [
        '[mockyard] no route answers GET /v1/nothing: no route has the path /v1/nothing.',
        'Closest routes:',
        '  - v1/users (GET, POST, PUT, PATCH, DELETE)',
        'Add a route to your routes file, for example "v1/nothing": { "file": "nothing.json" }.',
      ].join('\n'),
    )
    expect(server.requests({ path: '/v1/nothing' })).toHaveLength(1)
  })

  it('a preflight on a path no route has is answered by the engine and recorded as one', async () => {
    const res = await fetch(`${server.url}/not/configured`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'PUT' } })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(server.requests({ path: '/not/configured' })).toMatchObject([{ method: 'OPTIONS', status: 204, entry: 'preflight' }])
  })
})

describe('the same request again over one connection (decision 0034)', () => {
  let server: RunningServer

  beforeAll(async () => {
    const mocks = writeMocks(
      {
        'v1/claims/search': {
          file: 'none.json',
          post: [
            { params: { 'member.state': 'CA' }, file: 'ca.json' },
            { params: { 'member.state': 'NY' }, file: 'ny.json' },
            { params: { note: { pattern: '^a+$' } }, file: 'long.json' },
          ],
        },
        'v1/links': { file: 'links.json' },
      },
      { ...named('none.json', 'ca.json', 'ny.json', 'long.json'), 'links.json': '{"self":"${context}/v1/links"}' },
    )
    server = await startMockServer({ routes: mocks.routes, logProvider: captureLogs().logProvider })
  })

  afterAll(async () => {
    await server.stop()
    removeTempDirs()
  })

  it('answers and records each request by its own body, content type and Origin, whatever came just before', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      new Promise<{ file: string; origin: string | undefined }>((resolve, reject) => {
        const url = new URL(`${server.url}/v1/claims/search`)
        const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
          let text = ''
          res.on('data', (chunk) => (text += chunk))
          res.on('end', () => resolve({ file: (JSON.parse(text) as { file: string }).file, origin: res.headers['access-control-allow-origin'] }))
        })
        req.on('error', reject)
        req.end(body)
      })
    const state = (value: string) => JSON.stringify({ member: { state: value } })
    // A body over the length the listener keeps to compare (4096 bytes), twice, then again with one byte changed.
    const long = (last: string) => JSON.stringify({ note: 'a'.repeat(5000) + last })
    const sent: Array<[string, Record<string, string>?]> = [
      [state('CA')],
      [state('CA')],
      [state('NY')],
      [state('NY')],
      [state('CA')],
      [state('NY'), { 'content-type': 'text/plain' }],
      [state('NY'), { 'content-type': 'application/json', origin: 'http://app.test' }],
      [state('NY')],
      [long('a')],
      [long('a')],
      [long('b')],
      [state('CA')],
    ]
    server.reset()
    const answers: Array<{ file: string; origin: string | undefined }> = []
    for (const [body, headers] of sent) answers.push(await post(body, headers))
    agent.destroy()
    expect(answers.map((answer) => answer.file)).toEqual(['ca.json', 'ca.json', 'ny.json', 'ny.json', 'ca.json', 'none.json', 'ny.json', 'ny.json', 'long.json', 'long.json', 'none.json', 'ca.json'])
    expect(answers.map((answer) => answer.origin)).toEqual(['*', '*', '*', '*', '*', '*', 'http://app.test', '*', '*', '*', '*', '*'])
    expect(server.requests().map((record) => [record.body, record.file])).toEqual(sent.map(([body], i) => [body, answers[i]!.file]))
  })

  it('answers the same path by the Host each request names (`${context}`), whatever came just before', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const get = (host: string) =>
      new Promise<string>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port: server.port, path: '/v1/links', agent, headers: { host } }, (res) => {
          let text = ''
          res.on('data', (chunk) => (text += chunk))
          res.on('end', () => resolve(text))
        })
        req.on('error', reject)
      })
    const hosts = ['a.test:3000', 'a.test:3000', 'b.test:3000', 'b.test:3000', 'a.test:3000']
    const answers: string[] = []
    for (const host of hosts) answers.push(await get(host))
    agent.destroy()
    expect(answers).toEqual(hosts.map((host) => `{"self":"http://${host}/v1/links"}`))
  })
})
