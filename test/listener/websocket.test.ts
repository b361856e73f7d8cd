/**
 * docs/behaviour.md, "WebSocket", over the real listener: Node's global `WebSocket` (what a
 * browser does) and the `ws` package's client (which can send a Cookie header).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket as WsClient } from 'ws'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const chat = [
  { send: { type: 'welcome' } },
  { on: { type: 'ping' }, send: { type: 'pong' } },
  { on: { type: 'ping', room: 'a' }, send: { type: 'pong', room: 'a', id: '${message.id}' } },
  { on: 'bye', send: 'see you', close: 1000 },
  { on: { pattern: '^echo ' }, send: 'you said: ${message}' },
  { on: 'history', send: [{ file: 'history.json' }, { data: [1, 2] }, 'end'] },
  { on: 'slow', delay: 50, send: 'late' },
  { on: 'drop', drop: true },
]

/** A socket that collects what it receives, with a way to wait for the next messages and the close. */
function open(url: string, Client: typeof WebSocket = WebSocket) {
  const socket = new Client(url)
  const received: string[] = []
  let waiters: Array<() => void> = []
  const notify = () => {
    const current = waiters
    waiters = []
    for (const waiter of current) waiter()
  }
  socket.addEventListener('message', (event) => {
    received.push(String(event.data))
    notify()
  })
  const closed = new Promise<{ code: number; reason: string; wasClean: boolean }>((resolve) => socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason, wasClean: event.wasClean })))
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve())
    socket.addEventListener('error', () => reject(new Error('the socket failed to open')))
  })
  const messages = async (count: number) => {
    while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve))
    return received.slice(0, count)
  }
  return { socket, received, closed, opened, messages }
}

describe('WebSocket over the listener', () => {
  let server: RunningServer
  let ws: string
  beforeAll(async () => {
    const mocks = writeMocks(
      {
        'v1/chat': { websocket: chat },
        'v1/both': { file: 'plain.json', websocket: [{ send: 'hi' }] },
        'v1/users': { file: 'plain.json' },
      },
      { 'history.json': '{"messages":["a","b"]}', 'plain.json': '{"plain":true}' },
    )
    server = await startMockServer({ routes: mocks.routes })
    ws = server.url.replace(/^http/, 'ws')
  })
  afterEach(() => server.reset())
  afterAll(() => server?.stop())

  it('sends the open steps, replies by JSON path, and closes with 1000 after bye', async () => {
    const client = open(`${ws}/v1/chat`)
    expect(await client.messages(1)).toEqual(['{"type":"welcome"}'])
    client.socket.send(JSON.stringify({ type: 'ping', at: 1 }))
    expect((await client.messages(2))[1]).toBe('{"type":"pong"}')
    // The step naming most paths wins, and `${message.id}` keeps the id's type.
    client.socket.send(JSON.stringify({ type: 'ping', room: 'a', id: 7 }))
    expect(JSON.parse((await client.messages(3))[2]!)).toEqual({ type: 'pong', room: 'a', id: 7 })
    client.socket.send('echo hello')
    expect((await client.messages(4))[3]).toBe('you said: echo hello')
    client.socket.send('bye')
    expect((await client.messages(5))[4]).toBe('see you')
    const closed = await client.closed
    expect(closed.code).toBe(1000)
  })

  it('sends a data file, a { data } array as one message and several messages in order', async () => {
    const client = open(`${ws}/v1/chat`)
    await client.messages(1)
    client.socket.send('history')
    expect((await client.messages(4)).slice(1)).toEqual(['{"messages":["a","b"]}', '[1,2]', 'end'])
    client.socket.close()
  })

  it('records the connection and every message; one nothing matches is unmatched, with the closest step', async () => {
    const client = open(`${ws}/v1/chat`)
    await client.messages(1)
    client.socket.send(JSON.stringify({ type: 'pingg' }))
    const unmatched = await server.waitForRequest((r) => r.kind === 'websocket' && r.direction === 'in' && !r.matched)
    expect(unmatched.data).toBe('{"type":"pingg"}')
    expect(unmatched.route).toBe('v1/chat')
    expect(unmatched.explanation).toContain('matches no step')
    expect(unmatched.explanation).toContain('websocket[1]')
    expect(unmatched.explanation).toContain('"type" is "pingg", expected "ping"')
    const records = server.requests({ path: '/v1/chat' })
    expect(records.map((r) => [r.method, r.direction ?? null, r.matched])).toEqual([
      ['GET', null, true],
      ['MESSAGE', 'out', true],
      ['MESSAGE', 'in', false],
    ])
    expect(records[0]).toMatchObject({ kind: 'websocket', status: 101, entry: 'websocket' })
    expect(records[1]).toMatchObject({ data: '{"type":"welcome"}', entry: 'websocket[0]' })
    // No reply came.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(client.received).toHaveLength(1)
    client.socket.close()
    // The admin endpoint (what Playwright's fixture reads) and the dashboard's list say the same.
    const admin = (await (await fetch(`${server.url}/__mockyard/requests`)).json()) as { requests: Array<Record<string, unknown>> }
    expect(admin.requests.map((r) => [r.method, r.kind, r.direction ?? null, r.data ?? null, r.matched])).toEqual([
      ['GET', 'websocket', null, null, true],
      ['MESSAGE', 'websocket', 'out', '{"type":"welcome"}', true],
      ['MESSAGE', 'websocket', 'in', '{"type":"pingg"}', false],
    ])
    expect(admin.requests[2]!.explanation).toContain('closest: websocket[1]')
    const state = (await (await fetch(`${server.url}/__mockyard/dashboard/state`)).json()) as { requests: Array<Record<string, unknown>> }
    expect(state.requests.map((r) => [r.kind, r.direction ?? null, r.matched])).toEqual([
      ['websocket', null, true],
      ['websocket', 'out', true],
      ['websocket', 'in', false],
    ])
  })

  it('the dashboard lists a route\'s steps', async () => {
    const view = (await (await fetch(`${server.url}/__mockyard/dashboard/routes`)).json()) as { routes: Array<{ key: string; methods: string[]; entries: Array<Record<string, unknown>> }> }
    const route = view.routes.find((r) => r.key === 'v1/chat')!
    expect(route.methods).toEqual(['WS'])
    expect(route.entries.slice(0, 4)).toEqual([
      { method: 'WS', label: 'websocket[0]', conditional: false, on: null, answer: '{"type":"welcome"}' },
      { method: 'WS', label: 'websocket[1]', conditional: true, on: '{"type":"ping"}', answer: '{"type":"pong"}' },
      { method: 'WS', label: 'websocket[2]', conditional: true, on: '{"type":"ping","room":"a"}', answer: '{"type":"pong","room":"a","id":"${message.id}"}' },
      { method: 'WS', label: 'websocket[3]', conditional: true, on: '"bye"', answer: '"see you" · close 1000' },
    ])
    expect(view.routes.find((r) => r.key === 'v1/both')!.methods).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'WS'])
  })

  it('answers plain requests with the body, or 426 on a route with websocket alone', async () => {
    expect(await (await fetch(`${server.url}/v1/both`)).json()).toEqual({ plain: true })
    const upgrade = await fetch(`${server.url}/v1/chat`)
    expect(upgrade.status).toBe(426)
    expect(upgrade.headers.get('upgrade')).toBe('websocket')
    const both = open(`${ws}/v1/both`)
    expect(await both.messages(1)).toEqual(['hi'])
    both.socket.close()
  })

  it('refuses a socket where no route has steps, explained and recorded', async () => {
    for (const path of ['/v1/users', '/v1/nothing']) {
      const client = open(`${ws}${path}`)
      await expect(client.opened).rejects.toThrow()
      const closed = await client.closed
      expect(closed.code).toBe(1006)
    }
    const records = server.requests().filter((r) => r.kind === 'websocket')
    expect(records.map((r) => [r.url.replace(ws, ''), r.status, r.matched])).toEqual([
      ['/v1/users', 404, false],
      ['/v1/nothing', 404, false],
    ])
    expect(records[0]!.explanation).toContain('has no "websocket" steps')
    // A path no route has: said of the socket, with a route that opens one to add.
    expect(records[1]!.explanation).toContain('no route answers the WebSocket opened on /v1/nothing:')
    expect(records[1]!.explanation).toContain('for example "v1/nothing": { "websocket": [ { "send": "hello" } ] }')
  })

  it('names the routes with websocket steps first among the closest routes of a socket no route has', async () => {
    // v1/users is the closest path, but it cannot answer a WebSocket.
    const client = open(`${ws}/v1/user`)
    await expect(client.opened).rejects.toThrow()
    await client.closed
    const [record] = server.requests().filter((r) => r.kind === 'websocket')
    expect(record!.explanation).toContain(
      'no route has the path /v1/user.\nClosest routes:\n  - v1/chat (WebSocket)\n  - v1/both (GET, POST, PUT, PATCH, DELETE, WebSocket)\n  - v1/users (GET, POST, PUT, PATCH, DELETE)\n',
    )
  })

  it('accepts the first subprotocol the client asks for (graphql-ws, a chat protocol)', async () => {
    const socket = new WebSocket(`${ws}/v1/chat`, ['graphql-transport-ws', 'graphql-ws'])
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve)
      socket.addEventListener('error', reject)
    })
    expect(socket.protocol).toBe('graphql-transport-ws')
    socket.close()
  })

  it('drops the connection without a close frame', async () => {
    const client = open(`${ws}/v1/chat`)
    await client.messages(1)
    client.socket.send('drop')
    const closed = await client.closed
    expect(closed.code).toBe(1006)
    expect(closed.wasClean).toBe(false)
  })

  it('closes the sockets of a reset session with 1012, and only those', async () => {
    const cookieClient = (session: string) => open(`${ws}/v1/chat`, class extends WsClient {
      constructor(url: string) {
        super(url, { headers: { cookie: `theme=dark; mockyard-session=${session}` } })
      }
    } as unknown as typeof WebSocket)
    const a = cookieClient('alice')
    const b = cookieClient('bob')
    await a.messages(1)
    await b.messages(1)
    // The session is the cookie's (a browser's WebSocket sends no custom header).
    expect(server.requests({ session: 'alice', path: '/v1/chat' }).length).toBeGreaterThan(0)
    const reset = await fetch(`${server.url}/__mockyard/reset`, { method: 'POST', headers: { 'x-mockyard-session': 'alice' } })
    expect(reset.ok).toBe(true)
    expect((await a.closed).code).toBe(1012)
    b.socket.send('echo still here')
    expect((await b.messages(2))[1]).toBe('you said: echo still here')
    // Everyone's reset closes every socket.
    server.reset()
    expect((await b.closed).code).toBe(1012)
  })

  it('takes the session from the upgrade\'s header (Node\'s WebSocket can send headers)', async () => {
    const NodeWebSocket = WebSocket as unknown as new (url: string, options: { headers: Record<string, string> }) => WebSocket
    const socket = new NodeWebSocket(`${ws}/v1/chat`, { headers: { 'x-mockyard-session': 'carol', cookie: 'mockyard-session=other' } })
    await new Promise((resolve) => socket.addEventListener('message', resolve))
    expect(server.requests({ path: '/v1/chat' }).map((r) => r.session)).toEqual(['carol', 'carol'])
    const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve))
    await fetch(`${server.url}/__mockyard/reset`, { method: 'POST', headers: { 'x-mockyard-session': 'carol' } })
    expect((await closed).code).toBe(1012)
  })

  it('closes a socket whose message is over limit with 1009, and keeps serving', async () => {
    const mocks = writeMocks({ 'v1/chat': { websocket: [{ on: 'x', send: 'y' }] } })
    const small = await startMockServer({ routes: mocks.routes, limit: 1024 })
    try {
      const client = open(`${small.url.replace(/^http/, 'ws')}/v1/chat`)
      await client.opened
      client.socket.send('z'.repeat(2048))
      expect((await client.closed).code).toBe(1009)
      const again = open(`${small.url.replace(/^http/, 'ws')}/v1/chat`)
      await again.opened
      again.socket.send('x')
      expect(await again.messages(1)).toEqual(['y'])
      again.socket.close()
    } finally {
      await small.stop()
    }
  })

  it('a client that does not read holds its replies back: they cannot pile up in memory', async () => {
    const mocks = writeMocks({ 'v1/feed': { websocket: [{ on: 'more', send: { file: 'big.txt' } }] } }, { 'big.txt': 'x'.repeat(256 * 1024) })
    const own = await startMockServer({ routes: mocks.routes })
    try {
      const client = new WsClient(`${own.url.replace(/^http/, 'ws')}/v1/feed`)
      await new Promise((resolve) => client.once('open', resolve))
      // The client stops reading its socket, and asks for 100 MB of replies.
      ;(client as unknown as { _socket: import('node:net').Socket })._socket.pause()
      const asked = 400
      for (let i = 0; i < asked; i++) client.send('more')
      const sent = () => own.requests({ path: '/v1/feed' }).filter((r) => r.direction === 'out').length
      // Wait until mockyard stops sending (or has sent them all).
      let last = -1
      for (let i = 0; i < 40 && sent() !== last; i++) {
        last = sent()
        await new Promise((resolve) => setTimeout(resolve, 150))
      }
      // 1 MB of unsent replies, plus what the loopback's buffers hold, is a few dozen replies, not 400.
      expect(sent()).toBeLessThan(asked / 2)
      // Once the client reads, the rest follows.
      let received = 0
      client.on('message', () => received++)
      ;(client as unknown as { _socket: import('node:net').Socket })._socket.resume()
      for (let i = 0; i < 100 && received < asked; i++) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(received).toBe(asked)
      client.terminate()
    } finally {
      await own.stop()
    }
  })

  it('keeps at most sessions.limit sockets open; a session dropped by the bound has its sockets closed', async () => {
    const mocks = writeMocks({ 'v1/chat': { websocket: [{ send: 'hi' }] } })
    const own = await startMockServer({ routes: mocks.routes, sessions: { limit: 2 } })
    const url = `${own.url.replace(/^http/, 'ws')}/v1/chat`
    const inSession = (session: string) => open(url, class extends WsClient {
      constructor(target: string) {
        super(target, { headers: { 'x-mockyard-session': session } })
      }
    } as unknown as typeof WebSocket)
    try {
      const a = inSession('a')
      const b = inSession('b')
      await a.messages(1)
      await b.messages(1)
      // A third socket is refused (503) while two are open.
      const third = inSession('c')
      await expect(third.opened).rejects.toThrow()
      // A third session (here by a plain request) drops the least recently used one, "a": its socket closes.
      await fetch(`${own.url}/v1/other`, { headers: { 'x-mockyard-session': 'c' } })
      expect((await a.closed).code).toBe(1012)
      const again = inSession('d')
      expect(await again.messages(1)).toEqual(['hi'])
      again.socket.close()
      b.socket.close()
    } finally {
      await own.stop()
    }
  })

  it('stop() closes the open sockets and returns', async () => {
    const mocks = writeMocks({ 'v1/chat': { websocket: [{ send: 'hi' }] } })
    const own = await startMockServer({ routes: mocks.routes })
    const client = open(`${own.url.replace(/^http/, 'ws')}/v1/chat`)
    await client.messages(1)
    await own.stop()
    expect((await client.closed).code).toBe(1001)
  })
})
