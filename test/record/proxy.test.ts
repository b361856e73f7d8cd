import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMiddleware, MockServer, startMockServer } from 'mockyard/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { killAll, SECRETS, startApp, startCli, type App } from './support.js'

let app: App
let dir: string
let routes: string

beforeAll(async () => {
  app = await startApp()
  dir = mkdtempSync(join(tmpdir(), 'mockyard-proxy-'))
  mkdirSync(join(dir, 'data'))
  routes = join(dir, 'routes.json')
  writeFileSync(routes, JSON.stringify({ 'api/users': { file: 'users.json' } }))
  writeFileSync(join(dir, 'data', 'users.json'), '{"mock":true}')
})
afterEach(() => killAll())
afterAll(async () => {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the proxy option', () => {
  it('startMockServer: configured routes answer locally, everything else goes to the back end and back', async () => {
    const server = await startMockServer({ routes, proxy: app.url })
    try {
      expect(await (await fetch(`${server.url}/api/users`)).json()).toEqual({ mock: true })

      const search = await fetch(`${server.url}/api/search?q=cats`)
      expect(search.status).toBe(200)
      expect(await search.json()).toEqual({ q: 'cats', results: ['tabby', 'siamese'] })

      // Method, body and headers reach the back end; its status and Set-Cookie come back.
      const login = await fetch(`${server.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: 'ada', password: SECRETS.bodyPassword }) })
      expect(login.status).toBe(200)
      const me = await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${SECRETS.authorization}`, 'x-api-key': SECRETS.apiKeyHeader } })
      expect(me.status).toBe(200)
      expect(me.headers.get('set-cookie')).toContain(SECRETS.setCookie)
      const missing = await fetch(`${server.url}/api/nothing-here`)
      expect(missing.status).toBe(404)
      expect(await missing.json()).toEqual({ error: 'not here', path: '/api/nothing-here' })
      // The back end's own compression arrives intact.
      expect(await (await fetch(`${server.url}/api/gzipped`)).json()).toEqual({ compressed: true })

      const log = server.requests()
      expect(log.map((r) => [r.method, new URL(r.url).pathname, r.entry, r.matched, r.status])).toEqual([
        ['GET', '/api/users', 'default', true, 200],
        ['GET', '/api/search', 'proxy', false, 200],
        ['POST', '/api/login', 'proxy', false, 200],
        ['GET', '/api/me', 'proxy', false, 200],
        ['GET', '/api/nothing-here', 'proxy', false, 404],
        ['GET', '/api/gzipped', 'proxy', false, 200],
      ])
      expect(app.seen).toContain('POST /api/login')
      expect(app.seen).not.toContain('GET /api/users')
      // Proxy mode writes nothing to disk.
      expect(readdirSync(dir).sort()).toEqual(['data', 'routes.json'])
    } finally {
      await server.stop()
    }
  })

  it('the request log keeps the round trip to the target and its response headers, secrets redacted', async () => {
    const slow = createServer((req, res) => {
      req.resume()
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json', 'x-real': 'yes', 'set-cookie': `sid=${SECRETS.setCookie}` }).end('{"real":true}'), 200)
    })
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve))
    const server = await startMockServer({ routes, proxy: `http://127.0.0.1:${(slow.address() as AddressInfo).port}` })
    try {
      expect(await (await fetch(`${server.url}/api/slow`)).json()).toEqual({ real: true })
      const [record] = server.requests({ path: '/api/slow' })
      // The target waited 200 ms before answering: the duration covers it (a lower bound only).
      expect(record!.durationMs).toBeGreaterThanOrEqual(190)
      expect(record!.responseHeaders).toMatchObject({ 'content-type': 'application/json', 'x-real': 'yes', 'set-cookie': '<redacted>' })
    } finally {
      await server.stop()
      slow.close()
    }
  })

  it('a target that is down answers 502 JSON naming the target and what to do', async () => {
    const server = await startMockServer({ routes, proxy: 'http://127.0.0.1:9/base' })
    try {
      const res = await fetch(`${server.url}/api/other?x=1`)
      expect(res.status).toBe(502)
      expect(res.headers.get('content-type')).toContain('application/json')
      const body = await res.json()
      expect(body.error).toBe('Bad Gateway')
      expect(body.target).toBe('http://127.0.0.1:9/base')
      expect(body.message).toBe(
        '[mockyard] GET /api/other?x=1 matched no route and was forwarded to the proxy target http://127.0.0.1:9/base, which did not answer (ECONNREFUSED). ' +
          'Start the back end at http://127.0.0.1:9/base, point the proxy option at one that runs, or add a route for this request',
      )
      expect(server.requests()[0]).toMatchObject({ entry: 'proxy', status: 502, matched: false })
    } finally {
      await server.stop()
    }
  })

  it('a target with user:password sends them as Basic auth, and its messages show the password masked', async () => {
    let authorization: string | undefined
    const guarded = createServer((req, res) => {
      authorization = req.headers.authorization
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
    await new Promise<void>((resolve) => guarded.listen(0, '127.0.0.1', resolve))
    const up = await startMockServer({ routes, proxy: `http://admin:hunter2@127.0.0.1:${(guarded.address() as AddressInfo).port}` })
    const down = await startMockServer({ routes, proxy: 'http://admin:hunter2@127.0.0.1:9' })
    try {
      expect(await (await fetch(`${up.url}/api/other`)).json()).toEqual({ ok: true })
      expect(authorization).toBe(`Basic ${Buffer.from('admin:hunter2').toString('base64')}`)
      const text = await (await fetch(`${down.url}/api/other`)).text()
      expect(text).toContain('http://admin:***@127.0.0.1:9')
      expect(text).not.toContain('hunter2')
    } finally {
      await up.stop()
      await down.stop()
      guarded.close()
    }
  })

  it('the middleware forwards instead of calling next(), and MockServer forwards too', async () => {
    const middleware = await createMiddleware({ routes, proxy: app.url, latency: 0, watch: false })
    const host = createServer((req, res) => middleware(req, res, () => {
      res.writeHead(599)
      res.end('next() was called')
    }))
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
    const mockServer = new MockServer({ routes, proxy: app.url, latency: 0, watch: false })
    try {
      const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`
      expect(await (await fetch(`${base}/api/users`)).json()).toEqual({ mock: true })
      expect(await (await fetch(`${base}/api/search?q=dogs`)).json()).toEqual({ q: 'dogs', results: ['beagle'] })
      const { url } = await mockServer.start({ port: 0, host: '127.0.0.1' })
      expect((await fetch(`${url}/feed.xml`)).headers.get('content-type')).toBe('application/xml')
    } finally {
      host.closeAllConnections()
      await new Promise((resolve) => host.close(resolve))
      await middleware.close()
      await mockServer.stop()
    }
  })

  it('the CLI takes --proxy; its log line says the request was proxied', async () => {
    const cli = await startCli(['--routes', routes, '--proxy', app.url, '--latency', '0', '--port', '0', '--no-watch', '--host', '127.0.0.1'])
    expect(await (await fetch(`${cli.url}/api/users`)).json()).toEqual({ mock: true })
    const png = await fetch(`${cli.url}/img/logo.png`)
    expect(png.headers.get('content-type')).toBe('image/png')
    await expect.poll(cli.stderr).toMatch(new RegExp(`GET /img/logo.png 200 proxied to ${app.url} \\d+ms`))
    expect(await cli.stop('SIGTERM')).toBe(0)
  })

  it('a proxy that is not an http(s) URL is a config error', async () => {
    await expect(startMockServer({ routes, proxy: 'ftp://example.com' })).rejects.toThrow('options#/proxy: proxy must be an http or https URL, got "ftp://example.com"')
  })
})
