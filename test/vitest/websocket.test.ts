/**
 * docs/behaviour.md, "WebSocket", in process: `setupMockServer` answers the global `WebSocket`
 * with the route's steps, records it, lets `useRoutes` replace the steps for one test and
 * closes open sockets with 1012 at a reset.
 */
import { createRequire } from 'node:module'
import { afterAll, expect, it, onTestFinished } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const files = writeMocks(
  {
    'v1/chat': {
      websocket: [
        { send: { type: 'welcome' } },
        { on: { type: 'ping' }, send: { type: 'pong', id: '${message.id}' } },
        { on: 'bye', send: 'see you', close: 1000 },
        { on: 'history', send: { file: 'history.json' } },
        { on: 'drop', drop: true },
      ],
    },
  },
  { 'history.json': '["a","b"]' },
)
const mocks = setupMockServer({ routes: files.routes, data: files.data })

/** A socket that collects what it receives. */
function open(url: string) {
  const socket = new WebSocket(url)
  const received: string[] = []
  let wake: (() => void) | undefined
  socket.addEventListener('message', (event) => {
    received.push(String(event.data))
    wake?.()
  })
  const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', (event) => resolve(event)))
  const messages = async (count: number) => {
    while (received.length < count) await new Promise<void>((resolve) => (wake = resolve))
    return received.slice(0, count)
  }
  return { socket, received, closed, messages }
}

const interceptorLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => /@mswjs[\\/]interceptors[\\/].*WebSocket/.test(path))

it('loads the WebSocket interceptor only with the first socket', async () => {
  expect(interceptorLoaded()).toBe(false)
  const client = open('ws://api.test/v1/chat')
  expect(await client.messages(1)).toEqual(['{"type":"welcome"}'])
  expect(interceptorLoaded()).toBe(true)
  client.socket.close()
})

it('serves the steps to the global WebSocket and records every message', async () => {
  const client = open('wss://chat.example.test/v1/chat')
  expect(await client.messages(1)).toEqual(['{"type":"welcome"}'])
  client.socket.send(JSON.stringify({ type: 'ping', id: 'a1' }))
  expect((await client.messages(2))[1]).toBe('{"type":"pong","id":"a1"}')
  client.socket.send('history')
  expect((await client.messages(3))[2]).toBe('["a","b"]')
  client.socket.send('what?')
  const unmatched = await mocks.waitForRequest((r) => r.direction === 'in' && !r.matched)
  expect(unmatched).toMatchObject({ kind: 'websocket', data: 'what?', route: 'v1/chat' })
  expect(unmatched.explanation).toContain('matches no step')
  client.socket.send('bye')
  expect((await client.messages(4))[3]).toBe('see you')
  expect((await client.closed).code).toBe(1000)
  const records = mocks.requests({ path: '/v1/chat' })
  expect(records.map((r) => `${r.direction ?? 'open'} ${r.matched ? (r.entry ?? '') : 'unmatched'}`)).toEqual([
    'open websocket',
    'out websocket[0]',
    'in websocket[1]',
    'out websocket[1]',
    'in websocket[3]',
    'out websocket[3]',
    'in unmatched',
    'in websocket[2]',
    'out websocket[2]',
  ])
})

it('a message that is JSON but not an object is explained as such, not as "not JSON"', async () => {
  const client = open('ws://api.test/v1/chat')
  await client.messages(1)
  for (const text of ['null', 'hello?']) client.socket.send(text)
  await mocks.waitForRequest((r) => r.direction === 'in' && r.data === 'hello?')
  const [json, text] = mocks.requests({ path: '/v1/chat' }).filter((r) => r.direction === 'in')
  expect(json!.explanation).toContain(': expected JSON with "type", the message is the JSON value null, not an object or an array.')
  expect(text!.explanation).toContain(': expected JSON with "type", the message is not JSON.')
  client.socket.close()
})

it('a message sent and a close on open both reach the client, in order', async () => {
  mocks.useRoutes({ 'v1/chat': { websocket: [{ send: 'first' }, { send: 'last', close: 4001 }] } })
  const client = open('ws://api.test/v1/chat')
  expect((await client.closed).code).toBe(4001)
  expect(client.received).toEqual(['first', 'last'])
})

it('a message the client sends in its own open listener gets its reply', async () => {
  const socket = new WebSocket('ws://api.test/v1/chat')
  socket.addEventListener('open', () => socket.send(JSON.stringify({ type: 'ping', id: 'early' })))
  const replies: string[] = []
  await new Promise<void>((resolve) =>
    socket.addEventListener('message', (event) => {
      replies.push(String(event.data))
      if (replies.length === 2) resolve()
    }),
  )
  expect(replies).toEqual(['{"type":"welcome"}', '{"type":"pong","id":"early"}'])
  socket.close()
})

it('messages are answered in the order they were sent, a Blob among them', async () => {
  mocks.useRoutes({ 'v1/chat': { websocket: [{ on: { pattern: '.' }, send: 'echo ${message}' }] } })
  const client = open('ws://api.test/v1/chat')
  client.socket.addEventListener('open', () => {
    client.socket.send('one')
    client.socket.send(new Blob(['two']))
    client.socket.send('three')
  })
  expect(await client.messages(3)).toEqual(['echo one', 'echo two', 'echo three'])
  expect(mocks.requests({ path: '/v1/chat' }).filter((r) => r.direction === 'in').map((r) => r.data)).toEqual(['one', 'two', 'three'])
  client.socket.close()
})

it('accepts the first subprotocol the client asks for', async () => {
  const socket = new WebSocket('ws://api.test/v1/chat', ['graphql-transport-ws', 'graphql-ws'])
  await new Promise((resolve) => socket.addEventListener('open', resolve))
  expect(socket.protocol).toBe('graphql-transport-ws')
  socket.close()
})

it('useRoutes replaces the steps for one test', async () => {
  mocks.useRoutes({ 'v1/chat': { websocket: [{ send: 'overridden' }, { on: 'bye', close: 4000 }] } })
  const client = open('ws://api.test/v1/chat')
  expect(await client.messages(1)).toEqual(['overridden'])
  client.socket.send('bye')
  expect((await client.closed).code).toBe(4000)
})

it('the steps are the route\'s own again after the reset', async () => {
  const client = open('ws://api.test/v1/chat')
  expect(await client.messages(1)).toEqual(['{"type":"welcome"}'])
  client.socket.close()
})

it('a reset closes the open sockets with 1012', async () => {
  const client = open('ws://api.test/v1/chat')
  await client.messages(1)
  mocks.reset()
  expect((await client.closed).code).toBe(1012)
})

it('answers a plain request to a route with websocket alone with 426', async () => {
  const response = await fetch('http://api.test/v1/chat')
  expect(response.status).toBe(426)
})

it('drops the connection as a lost one: an error, then close 1006, not clean, to every listener', async () => {
  // As on Node 22, which has no global CloseEvent (mockyard supports it).
  const global = globalThis as { CloseEvent?: unknown }
  const saved = global.CloseEvent
  delete global.CloseEvent
  onTestFinished(() => void (global.CloseEvent = saved))
  const client = open('ws://api.test/v1/chat')
  await client.messages(1)
  const seen: string[] = []
  client.socket.addEventListener('error', () => seen.push('error'))
  client.socket.onclose = (event) => seen.push(`onclose ${event.code} ${event.wasClean}`)
  client.socket.send('drop')
  const closed = await client.closed
  expect(closed.code).toBe(1006)
  expect(closed.wasClean).toBe(false)
  expect(seen).toEqual(['error', 'onclose 1006 false'])
  expect(client.socket.readyState).toBe(WebSocket.CLOSED)
})
