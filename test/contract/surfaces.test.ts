import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import connect from 'connect'
import express from 'express'
import { setupServer } from 'msw/node'
import { createHandlers, createMiddleware, MockServer, startMockServer } from 'mockyard/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { EXAMPLES_DATA, EXAMPLES_ROUTES, runContract as runCases, type Surface } from './cases.js'

const runContract = (name: string, create: () => Promise<Surface>, features?: { overrides?: boolean }) => runCases(name, create, { describe, it, beforeAll, afterAll, beforeEach, expect }, features)

const options = { routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA, latency: 0, watch: false }
const quiet = { ...options, logProvider: () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error }) }

function over(base: string, close: () => unknown, reset: () => unknown): Surface {
  return { fetch: (path, init) => fetch(base + path, init), close: async () => void (await close()), reset: () => void reset(), useRoutes: (routes) => putRoutes(base, routes) }
}

/** Overrides routes over the wire, as a test against a running listener does (`PUT /__mockyard/routes`). */
async function putRoutes(base: string, routes: Record<string, unknown>): Promise<void> {
  const res = await fetch(base + '/__mockyard/routes', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(routes) })
  if (res.status !== 200) throw new Error(`PUT /__mockyard/routes answered ${res.status}: ${await res.text()}`)
}

async function listenOn(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

runContract('in process (createHandlers + msw setupServer)', async () => {
  const server = setupServer(...(await createHandlers(options)))
  server.listen({ onUnhandledFrame: 'error' })
  return {
    fetch: (path, init) => fetch('http://api.example.test' + path, init),
    reset: () => server.resetHandlers(),
    close: () => server.close(),
  }
})

runContract('HTTP listener (startMockServer)', async () => {
  const server = await startMockServer(options)
  return over(server.url, () => server.stop(), () => server.reset())
}, { overrides: true })

/** The middleware mounted in an express or connect app, listening on a random port. */
async function inApp(mount: (middleware: Awaited<ReturnType<typeof createMiddleware>>) => Parameters<typeof createServer>[1]): Promise<Surface> {
  const middleware = await createMiddleware(quiet)
  const server = createServer(mount(middleware))
  const base = await listenOn(server)
  return over(base, async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await middleware.close()
  }, () => middleware.reset())
}

runContract('middleware in express', () => inApp((middleware) => express().use(middleware)))

runContract('middleware in connect', () => inApp((middleware) => connect().use(middleware) as never))

runContract('MockServer', async () => {
  const server = new MockServer(quiet)
  const { port } = await server.start({ host: '127.0.0.1' })
  return over(`http://127.0.0.1:${port}`, () => server.stop(), () => server.reset())
}, { overrides: true })
