/**
 * The examples of the guides (docs/node.md, docs/playwright.md) that the snippet test cannot run
 * as an app (a fixed port, an express app of yours), as written there (paths point at the
 * examples fixture instead of a project's mocks/ folder).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { setupServer } from 'msw/node'
import { afterAll, describe, expect, it } from 'vitest'
import { compileRoutes, memoryFiles } from 'mockyard'
import { createRouteHandlers } from 'mockyard/msw'
import { createMiddleware, MockServer, startMockServer } from 'mockyard/node'
import { createAdminClient } from 'mockyard/playwright'
import { EXAMPLES_DATA, EXAMPLES_ROUTES } from '../contract/cases.js'

describe('README examples', () => {
  it('createRouteHandlers: a table in memory, answering one origin only', async () => {
    const table = compileRoutes([{ file: 'inline', routes: { 'v1/users': { file: 'users.json' } }, files: memoryFiles({ 'users.json': '[]' }) }])
    const server = setupServer(...createRouteHandlers(table, { origin: 'http://localhost:3000' }))
    server.listen({ onUnhandledFrame: 'bypass' } as never)
    try {
      const res = await fetch('http://localhost:3000/v1/users')
      expect(await res.text()).toBe('[]')
      // Another origin is not answered: the request goes on (and fails: nothing listens there).
      await expect(fetch('http://127.0.0.1:9/v1/users')).rejects.toThrow()
    } finally {
      server.close()
    }
  })

  it('createRouteHandlers: an origin with a path prefix', async () => {
    const table = compileRoutes([{ file: 'inline', routes: { 'v1/users': { file: 'users.json' } }, files: memoryFiles({ 'users.json': '[1]' }) }])
    const server = setupServer(...createRouteHandlers(table, { origin: 'http://api.test/mock' }))
    server.listen({ onUnhandledFrame: 'bypass' } as never)
    try {
      expect(await (await fetch('http://api.test/mock/v1/users')).text()).toBe('[1]')
    } finally {
      server.close()
    }
  })

  it('MockServer: start({ port: 0 }) and config().server.address()', async () => {
    const server = new MockServer({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA, latency: 0, watch: false, logProvider: () => ({ log() {}, debug() {}, info() {}, warn() {}, error() {} }) })
    const { url, port } = await server.start({ port: 0 })
    try {
      const address = server.config().server?.address() as AddressInfo
      expect(address.port).toBe(port)
      expect(server.config().options.latency).toBe(0)
      expect((await fetch(`${url}/v1/users`)).status).toBe(200)
    } finally {
      await server.stop()
    }
    expect(server.config().server).toBeUndefined()
  })

  it("createMiddleware mounted at '/mock' in express, with next() for the rest", async () => {
    const app = express()
    const middleware = await createMiddleware({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA, latency: 0, watch: false, logProvider: () => ({ log() {}, debug() {}, info() {}, warn() {}, error() {} }) })
    app.use('/mock', middleware)
    app.use((_req, res) => void res.status(418).send('next'))
    const server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      expect(await (await fetch(`${base}/mock/v1/users`)).json()).toEqual({ file: 'users.json' })
      const other = await fetch(`${base}/mock/v1/nothing`)
      expect([other.status, await other.text()]).toEqual([418, 'next'])
      expect(middleware.requests({ path: '/v1/nothing' })[0]).toMatchObject({ matched: false })
    } finally {
      server.closeAllConnections()
      server.close()
      await middleware.close()
    }
  })

  describe('createAdminClient from any Node test', () => {
    let stop: () => Promise<void> = async () => undefined
    afterAll(() => stop())

    it('resets, reads the request log and overrides routes for one session', async () => {
      const server = await startMockServer({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA })
      stop = server.stop
      const admin = createAdminClient(server.url, { session: 'worker-1' })
      const other = createAdminClient(server.url, { session: 'worker-2' })
      await admin.useRoutes({ 'v1/flags': { file: 'users.json', status: 201 } })
      const headers = { 'x-mockyard-session': 'worker-1' }
      expect((await fetch(`${server.url}/v1/flags`, { headers })).status).toBe(201)
      expect((await fetch(`${server.url}/v1/flags`, { headers: { 'x-mockyard-session': 'worker-2' } })).status).toBe(404)
      expect((await admin.requests()).map((r) => [r.url.replace(server.url, ''), r.status])).toEqual([['/v1/flags', 201]])
      expect((await other.requests()).map((r) => r.status)).toEqual([404])
      expect((await admin.routes())['v1/flags']).toEqual({ file: 'users.json', status: 201 })
      await admin.reset()
      expect(await admin.requests()).toEqual([])
      expect((await fetch(`${server.url}/v1/flags`, { headers })).status).toBe(404)
      await expect(admin.waitForRequest(() => false, { timeout: 200 })).rejects.toThrow('no request fitting the predicate')
    })
  })
})

describe('README: the isomorphic core', () => {
  it('validates, compiles and answers a Fetch Request', async () => {
    const { validateRoutes, createEngine, fromFetchRequest, toFetchResponse } = await import('mockyard')
    const routes = { 'v1/users': { file: 'users.json', get: [{ file: 'admins.json', params: { role: 'admin' } }] } }
    expect(validateRoutes(routes, 'inline')).toEqual({ errors: [], warnings: [] })
    const engine = createEngine(compileRoutes([{ file: 'inline', routes, files: memoryFiles({ 'users.json': '[]', 'admins.json': '[1]' }) }]))
    const result = await engine.handle(fromFetchRequest(new Request('http://x.test/v1/users?role=admin')))
    expect(result.matched && [result.response.status, result.info.file]).toEqual([200, 'admins.json'])
    const response = result.matched ? toFetchResponse(result.response) : undefined
    expect([response?.status, await response?.text()]).toEqual([200, '[1]'])
    const missing = await engine.handle(fromFetchRequest(new Request('http://x.test/v1/nope')))
    expect(!missing.matched && missing.explanation()).toContain('no route answers GET /v1/nope')
    const request = new Request('http://x.test/v1/users')
    const now = engine.handle({ method: request.method, url: request.url, headers: request.headers, body: () => null })
    expect(now).not.toBeInstanceOf(Promise)
    expect(!(now instanceof Promise) && now.matched && now.info.file).toBe('users.json')
  })
})
