/**
 * docs/websocket.md and docs/behaviour.md, "WebSocket", in process: msw's WebSocket handlers
 * (`ws.link`), given in `use()` or in the `handlers` option, are tried before the routes, as
 * request handlers are; `use()` ones last until the test's reset. Runs against msw 3 and msw 2.
 */
import type { AddressInfo } from 'node:net'
import { ws } from 'msw'
import { WebSocketServer } from 'ws'
import { afterAll, expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const files = writeMocks({ 'v1/chat': { websocket: [{ send: 'from the route' }] } }, {})
const fromOptions = ws.link('ws://api.test/v1/options').addEventListener('connection', ({ client }) => client.send('from the handlers option'))
const mocks = setupMockServer({ routes: files.routes, data: files.data, handlers: [fromOptions] })

/** The first message a socket to `url` receives, or how it closed. */
function firstMessage(url: string): Promise<string> {
  const socket = new WebSocket(url)
  return new Promise((resolve) => {
    socket.addEventListener('message', (event) => {
      resolve(String(event.data))
      socket.close()
    })
    socket.addEventListener('close', (event) => resolve(`closed ${event.code}`))
  })
}

it('a ws handler given to use() answers a socket no route has steps for, recorded as a handler', async () => {
  mocks.use(ws.link('ws://api.test/v1/custom').addEventListener('connection', ({ client }) => client.send('from use()')))
  expect(await firstMessage('ws://api.test/v1/custom')).toBe('from use()')
  expect(mocks.requests()).toMatchObject([{ kind: 'websocket', url: 'ws://api.test/v1/custom', status: 101, matched: true, entry: 'handler' }])
})

it('a ws handler given to use() goes before the routes; one for another URL leaves the routes to answer', async () => {
  mocks.use(ws.link('ws://api.test/v1/elsewhere').addEventListener('connection', ({ client }) => client.send('elsewhere')))
  expect(await firstMessage('ws://api.test/v1/chat')).toBe('from the route')
  mocks.use(ws.link('ws://api.test/v1/chat').addEventListener('connection', ({ client }) => client.send('from use()')))
  expect(await firstMessage('ws://api.test/v1/chat')).toBe('from use()')
})

it('HTTP requests still reach the routes with ws handlers in use (msw 2 would run a ws handler as a request one)', async () => {
  mocks.use(ws.link('ws://api.test/v1/chat').addEventListener('connection', ({ client }) => client.send('from use()')))
  const response = await fetch('http://api.test/v1/chat')
  expect(response.status).toBe(426)
  expect(mocks.requests()).toMatchObject([{ method: 'GET', url: 'http://api.test/v1/chat', status: 426, entry: 'websocket' }])
})

it("use()'s ws handlers are gone with the test that gave them", async () => {
  expect(await firstMessage('ws://api.test/v1/chat')).toBe('from the route')
})

it('a ws handler of the handlers option answers in every test', async () => {
  expect(await firstMessage('ws://api.test/v1/options')).toBe('from the handlers option')
})

it('a ws handler can let a socket through to a real server (server.connect())', async () => {
  const real = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  real.on('connection', (socket) => socket.send('from the real server'))
  await new Promise((resolve) => real.once('listening', resolve))
  try {
    const url = `ws://127.0.0.1:${(real.address() as AddressInfo).port}/live`
    mocks.use(ws.link(url).addEventListener('connection', ({ server }) => server.connect()))
    expect(await firstMessage(url)).toBe('from the real server')
  } finally {
    await new Promise((resolve) => real.close(resolve))
  }
})
