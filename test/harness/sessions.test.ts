/** docs/behaviour.md, "Sessions": per-session state of the listener is bounded by sessions.limit, least recently used dropped first. */
import { Agent } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { buildNotifications, createNotificationsHandlers, type NotificationsHandler } from 'mockyard/notifications'
import { startMockServer, validateOptions, type RunningServer } from 'mockyard/node'
import type { Logger } from 'mockyard'
import { named, rawRequest, removeTempDirs, writeMocks } from '../support/routes.js'

/** The session header, by the name the README gives it. */
const SESSION_HEADER = 'x-mockyard-session'

afterAll(removeTempDirs)

const routes = { 'v1/s': { get: [{ response: [{ file: 'one.json' }, { file: 'two.json' }] }] }, 'v1/users': { file: 'one.json' } }
const files = named('one.json', 'two.json')

function debugLogs(): { lines: string[]; logProvider: () => Logger } {
  const lines: string[] = []
  const none = () => undefined
  return { lines, logProvider: () => ({ log: none, info: none, warn: none, error: none, debug: (...args: unknown[]) => void lines.push(args.join(' ')) }) }
}

describe('sessions.limit', () => {
  let server: RunningServer
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  afterAll(async () => {
    agent.destroy()
    await server?.stop()
  })

  const step = async (session: string) => {
    const res = await rawRequest(server.url, '/v1/s', { headers: { [SESSION_HEADER]: session }, agent })
    return (JSON.parse(res.body.toString()) as { file: string }).file
  }

  it('5,000 sessions with limit 100: the latest 100 keep their state, a dropped one starts afresh', async () => {
    const logs = debugLogs()
    const notifications = createNotificationsHandlers({ notifications: buildNotifications(2), defaultUser: 'aka-user' })
    const store = (notifications[0] as NotificationsHandler).store
    const mocks = writeMocks(routes, files)
    server = await startMockServer({ routes: mocks.routes, data: mocks.data, sessions: { limit: 100 }, handlers: notifications, logProvider: logs.logProvider })

    // Session "first" changes everything it can: a sequence, a route override, the notifications store.
    expect(await step('first')).toBe('one.json')
    const put = await rawRequest(server.url, '/__mockyard/routes', { method: 'PUT', headers: { 'content-type': 'application/json', [SESSION_HEADER]: 'first' }, body: '{"v1/mine":{"file":"two.json"}}' })
    expect(put.status).toBe(200)
    const id = store.list()[0]!.id
    const patched = await fetch(`${server.url}/api/v1/notifications/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', [SESSION_HEADER]: 'first' }, body: '{"read":true}' })
    expect(patched.status).toBe(200)
    expect(store.list('first').find((n) => n.id === id)!.read).toBe(true)
    expect((await fetch(`${server.url}/v1/mine`, { headers: { [SESSION_HEADER]: 'first' } })).status).toBe(200)

    for (let batch = 0; batch < 5000; batch += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => step(`s${batch + i}`)))
    }
    // The latest sessions are still where they were: their second request gets the second item.
    for (const session of ['s4999', 's4950', 's4901']) expect(await step(session)).toBe('two.json')
    // "first" was dropped long ago: everything it changed is gone, and it starts afresh.
    expect(store.list('first').find((n) => n.id === id)!.read).toBe(false)
    expect((await fetch(`${server.url}/v1/mine`, { headers: { [SESSION_HEADER]: 'first' } })).status).toBe(404)
    expect(await step('first')).toBe('one.json')
    expect(await step('first')).toBe('two.json')
    // An early numbered session too.
    expect(await step('s0')).toBe('one.json')
    expect(logs.lines.some((line) => /^\[mockyard\] session "first" dropped: more than 100 sessions are live \(sessions\.limit\)/.test(line))).toBe(true)
    expect(logs.lines.length).toBeGreaterThanOrEqual(4900)
  }, 60_000)

  it('using a session keeps it: the least recently used goes first, not the oldest', async () => {
    const small = await startMockServer({ routes: writeMocks(routes, files).routes, sessions: { limit: 2 }, logProvider: debugLogs().logProvider })
    const at = async (session: string) => ((await (await fetch(`${small.url}/v1/s`, { headers: { [SESSION_HEADER]: session } })).json()) as { file: string }).file
    try {
      expect(await at('a')).toBe('one.json')
      expect(await at('b')).toBe('one.json')
      expect(await at('a')).toBe('two.json') // a is now the most recent
      expect(await at('c')).toBe('one.json') // drops b
      expect(await at('a')).toBe('one.json') // a kept its place in the sequence: third request, first item again
      expect(await at('b')).toBe('one.json') // b starts afresh (and drops c)
      expect(await at('b')).toBe('two.json')
    } finally {
      await small.stop()
    }
  })

  it('requests without a session share one state that is never dropped', async () => {
    const small = await startMockServer({ routes: writeMocks(routes, files).routes, sessions: { limit: 1 }, logProvider: debugLogs().logProvider })
    try {
      expect(((await (await fetch(`${small.url}/v1/s`)).json()) as { file: string }).file).toBe('one.json')
      for (const session of ['x', 'y', 'z']) await fetch(`${small.url}/v1/s`, { headers: { [SESSION_HEADER]: session } })
      expect(((await (await fetch(`${small.url}/v1/s`)).json()) as { file: string }).file).toBe('two.json')
    } finally {
      await small.stop()
    }
  })

  it('the option is checked: a whole number of at least 1, and nothing else inside', () => {
    expect(validateOptions({ sessions: { limit: 10 } }, 'options')).toEqual({ errors: [], warnings: [], unknown: [] })
    expect(validateOptions({ sessions: { limit: 0 } }, 'options').errors.map((p) => p.message)).toEqual(['sessions.limit must be a whole number of at least 1'])
    expect(validateOptions({ sessions: { limit: 1.5 } }, 'options').errors.map((p) => p.pointer)).toEqual(['/sessions/limit'])
    expect(validateOptions({ sessions: { max: 3 } }, 'options').warnings.map((p) => p.message)).toEqual(['unknown option "sessions.max", ignored'])
    expect(validateOptions({ sessions: 5 }, 'options').errors.map((p) => p.message)).toEqual(['sessions must be an object'])
  })
})
