/** docs/behaviour.md, "WebSocket": the steps of a route, as the core compiles, matches and checks them. */
import { describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, fromFetchRequest, memoryFiles, validateRoutes } from 'mockyard'
import { compileSocket, explainMessage, matchMessage, messagesOf, outText } from '../../src/core/websocket.js'

const steps = (list: unknown[]) => compileSocket(list, memoryFiles({}), ['v1/chat', 'websocket'])

describe('matching a client message', () => {
  const socket = steps([
    { send: 'welcome' },
    { on: { type: 'ping' }, send: 'pong' },
    { on: { type: 'ping', 'room.id': 7 }, send: 'pong in 7' },
    { on: { type: 'ping', 'room.id': 7 }, send: 'second' },
    { on: { kind: ['a', 'b'] }, send: 'a or b' },
    { on: { 'user.name': { pattern: '^ann' } }, send: 'ann' },
    { on: { filter: { in: [1, 2] } }, send: 'deep' },
    { on: 'bye', send: 'see you' },
    { on: { pattern: '^hel+o$', flags: 'i' }, send: 'hi' },
  ])
  const reply = (text: string) => matchMessage(socket, text)?.step.send

  it('a text exactly, a pattern by regex', () => {
    expect(reply('bye')).toEqual([{ text: 'see you' }])
    expect(reply('bye ')).toBeUndefined()
    expect(reply('HELLLO')).toEqual([{ text: 'hi' }])
  })

  it('JSON by paths, values compared as params are: text form, arrays, patterns, deep objects', () => {
    expect(reply('{"type":"ping","at":1}')).toEqual([{ text: 'pong' }])
    // The text form: "7" and 7 are the same value.
    expect(reply('{"type":"ping","room":{"id":"7"}}')).toEqual([{ text: 'pong in 7' }])
    expect(reply('{"kind":"b"}')).toEqual([{ text: 'a or b' }])
    expect(reply('{"kind":"c"}')).toBeUndefined()
    expect(reply('{"user":{"name":"Annie"}}')).toEqual([{ text: 'ann' }])
    expect(reply('{"filter":{"in":[1,2]}}')).toEqual([{ text: 'deep' }])
    expect(reply('{"filter":{"in":[1]}}')).toBeUndefined()
  })

  it('most paths named wins, then the first; a path the message lacks is no match', () => {
    expect(reply('{"type":"ping","room":{"id":7}}')).toEqual([{ text: 'pong in 7' }])
    expect(reply('{"room":{"id":7}}')).toBeUndefined()
  })

  it('a message that is not JSON matches no object step', () => {
    expect(reply('type=ping')).toBeUndefined()
  })

  it('explains an unmatched message with the closest step', () => {
    const text = explainMessage(socket, 'v1/chat', '{"type":"pong","room":{"id":7}}')
    expect(text).toContain('matches no step')
    expect(text).toContain('closest: websocket[2]')
    expect(text).toContain('/v1~1chat/websocket/2')
    expect(text).toContain('"type" is "pong", expected "ping"')
    expect(explainMessage(steps([{ send: 'x' }]), 'v1/chat', 'hi')).toContain('has no step with "on"')
  })
})

describe('what a step sends', () => {
  it('each form of data', () => {
    expect(messagesOf('plain')).toEqual([{ text: 'plain' }])
    expect(messagesOf({ a: 1 })).toEqual([{ json: { a: 1 } }])
    expect(messagesOf(3)).toEqual([{ json: 3 }])
    expect(messagesOf(['a', { b: 2 }, [1], { file: 'x.json' }])).toEqual([{ text: 'a' }, { json: { b: 2 } }, { json: [1] }, { file: 'x.json' }])
    expect(messagesOf({ data: [1, 2] })).toEqual([{ json: [1, 2] }])
    expect(messagesOf({ data: { file: 'x.json' } })).toEqual([{ json: { file: 'x.json' } }])
    expect(messagesOf({ file: 'x.json', other: 1 })).toEqual([{ json: { file: 'x.json', other: 1 } }])
  })

  it('${message.<path>} in a reply: the whole string keeps the type, a part becomes text', () => {
    const message = { id: 7, user: { name: 'ann' } }
    expect(outText({ json: { id: '${message.id}', text: 'hi ${message.user.name}', all: '${message.user}' } }, message)).toBe('{"id":7,"text":"hi ann","all":{"name":"ann"}}')
    expect(outText({ text: 'echo: ${message}' }, 'hello')).toBe('echo: hello')
    expect(outText({ json: { id: '${message.missing}' } }, message)).toBe('{}')
  })
})

describe('validation names the JSON path and the fix', () => {
  it('reports each bad step where it is', () => {
    const { errors, warnings } = validateRoutes(
      { 'v1/chat': { websocket: [{ delay: 5 }, { on: 1 }, { send: 'x', close: 1006 }, { send: { file: '../x' } }, { send: 'x', sned: 1 }] } },
      'routes.json',
    )
    expect(errors.map((e) => e.pointer)).toEqual(['/v1~1chat/websocket/0', '/v1~1chat/websocket/1/on', '/v1~1chat/websocket/2/close', '/v1~1chat/websocket/3/send/file'])
    expect(errors[0]!.fix).toContain('"send"')
    expect(errors[2]!.fix).toContain('3000 to 4999')
    expect(warnings.map((w) => [w.pointer, w.fix])).toEqual([['/v1~1chat/websocket/4/sned', 'Did you mean "send"? Rename it, or remove it.']])
    expect(validateRoutes({ 'v1/chat': { websocket: 'x' } }, 'routes.json').errors[0]).toMatchObject({ pointer: '/v1~1chat/websocket', message: 'websocket must be an array of steps' })
  })
})

describe('plain requests to a route with websocket steps', () => {
  const engine = createEngine(
    compileRoutes([{ file: 'routes.json', routes: { 'v1/chat': { websocket: [{ send: 'x' }] }, 'v1/both': { status: 204, websocket: [{ send: 'x' }] } }, files: memoryFiles({}) }]),
  )
  it('get 426 with websocket alone, the body otherwise', async () => {
    const alone = await engine.handle(fromFetchRequest(new Request('http://api.test/v1/chat')))
    expect(alone.matched && alone.response.status).toBe(426)
    expect(alone.matched && alone.response.headers.upgrade).toBe('websocket')
    const both = await engine.handle(fromFetchRequest(new Request('http://api.test/v1/both', { method: 'POST' })))
    expect(both.matched && both.response.status).toBe(204)
  })
})

it('the closest routes of an explanation name WebSocket among what a route answers', async () => {
  const engine = createEngine(compileRoutes([{ file: 'routes.json', routes: { 'v1/chat': { websocket: [{ send: 'x' }] } }, files: memoryFiles({}) }]))
  const result = await engine.handle(fromFetchRequest(new Request('http://api.test/v1/chatt')))
  expect(!result.matched && result.explanation()).toContain('- v1/chat (WebSocket)')
})

