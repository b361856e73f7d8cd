/**
 * docs/behaviour.md, "Faults", through the msw handlers mockyard makes (`createHandlers` in an
 * app's own `setupServer`): msw's network error for `reset` and `close`, a cut body for
 * `truncate`, and a hang that ends at msw's `resetHandlers()`.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createHandlers } from 'mockyard/node'
import { removeTempDirs, writeMocks } from '../support/routes.js'

const server = setupServer()
beforeAll(async () => {
  const { routes } = writeMocks(
    { 'v1/flaky': { fault: 'reset' }, 'v1/closed': { fault: 'close' }, 'v1/stuck': { fault: 'hang' }, 'v1/cut': { file: 'r.json', fault: 'truncate' } },
    { 'r.json': JSON.stringify({ rows: [1, 2, 3, 4, 5, 6, 7, 8, 9] }) },
  )
  server.use(...(await createHandlers({ routes })))
  server.listen()
})
afterAll(() => {
  server.close()
  removeTempDirs()
})

const outcome = (path: string, init?: RequestInit) =>
  fetch(`http://api.test${path}`, init).then(
    async (res) => `${res.status} ${await res.text().catch((error: Error) => `body failed: ${error.name}`)}`,
    (error: Error) => `failed: ${error.name}`,
  )

it('reset and close are network errors; truncate answers a body that fails', async () => {
  expect(await outcome('/v1/flaky')).toBe('failed: TypeError')
  expect(await outcome('/v1/closed')).toBe('failed: TypeError')
  expect(await outcome('/v1/cut')).toBe('200 body failed: TypeError')
})

it('a hang ends with the request signal, or at msw\'s resetHandlers()', async () => {
  expect(await outcome('/v1/stuck', { signal: AbortSignal.timeout(50) })).toBe('failed: TimeoutError')
  const pending = outcome('/v1/stuck')
  await new Promise((resolve) => setTimeout(resolve, 50))
  // resetHandlers() drops handlers added with use(): put them back after it.
  const handlers = server.listHandlers()
  server.resetHandlers(...handlers)
  expect(await pending).toBe('failed: TypeError')
})
