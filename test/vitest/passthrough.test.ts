/**
 * msw's own ways out of the mocks, in a `use()` handler under setupMockServer: `passthrough()`
 * sends the request to the network as it is, and `fetch(bypass(request))` fetches the real
 * answer to patch it (msw's "response patching"), each once, never back into the mocks.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { bypass, http, HttpResponse, passthrough } from 'msw'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { named, writeMocks } from '../support/routes.js'

const files = writeMocks({ 'v1/users': { file: 'users.json' } }, named('users.json'))
const mocks = setupMockServer({ routes: files.routes, data: files.data })

// The network: a real server on loopback, which counts what reaches it.
let real: Server
let base = ''
const reached: string[] = []
beforeAll(async () => {
  real = createServer((req, res) => {
    reached.push(`${req.method} ${req.url} ${req.headers.accept ?? ''}`)
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ real: true }))
  })
  await new Promise<void>((resolve) => real.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(real.address() as AddressInfo).port}`
})
afterAll(() => new Promise((resolve) => real.close(resolve)))

it('passthrough() in a use() handler sends the request to the network, not to the routes', async () => {
  mocks.use(http.get('*/v1/users', () => passthrough()))
  const res = await fetch(`${base}/v1/users`)
  expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { real: true } })
  expect(reached.splice(0)).toEqual(['GET /v1/users */*'])
})

it('fetch(bypass(request)) in a use() handler gets the real answer once, without the marker, to patch it', async () => {
  mocks.use(
    http.get('*/v1/users', async ({ request }) => {
      const original = (await (await fetch(bypass(request))).json()) as object
      return HttpResponse.json({ ...original, patched: true })
    }),
  )
  expect(await (await fetch(`${base}/v1/users`, { headers: { accept: 'application/json' } })).json()).toEqual({ real: true, patched: true })
  expect(reached.splice(0)).toEqual(['GET /v1/users application/json'])
})

it('without them, the routes answer as loaded', async () => {
  expect(await (await fetch(`${base}/v1/users`)).json()).toEqual({ file: 'users.json' })
  expect(reached).toEqual([])
})
