/**
 * docs/behaviour.md, "Sessions": what one session costs. A session that only advances sequences
 * answers from the shared compiled table and keeps its positions alone; a session that changes
 * one notification keeps that notification, not a copy of every fixture.
 */
import { Agent } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { buildNotifications, createNotificationsStore } from 'mockyard/notifications'
import { createInstance, type Instance } from '../../src/config/instance.js'
import { listen, type RunningServer } from '../../src/listener/server.js'
import { captureLogs, named, rawRequest, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

describe('a session that only advances sequences', () => {
  let instance: Instance
  let server: RunningServer
  const agent = new Agent({ keepAlive: true, maxSockets: 8 })
  afterAll(async () => {
    agent.destroy()
    await server?.stop()
  })

  it('shares the compiled route table: 2,000 new sessions over HTTP keep one engine and at most sessions.limit positions', async () => {
    const mocks = writeMocks({ 'v1/s': { get: [{ response: [{ file: 'one.json' }, { file: 'two.json' }] }] }, 'v1/users': { file: 'one.json' } }, named('one.json', 'two.json'))
    instance = await createInstance({ routes: mocks.routes, sessions: { limit: 100 }, logProvider: captureLogs().logProvider }, { latency: 0, watch: false, logLevel: 'error' })
    server = await listen(instance, '127.0.0.1', 0)
    const send = async (path: string, session: string) => (await rawRequest(server.url, path, { headers: { 'x-mockyard-session': session }, agent })).status
    for (let batch = 0; batch < 20; batch++) {
      const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => send(i % 2 ? '/v1/s' : '/v1/users', `s-${batch * 100 + i}`)))
      expect(statuses.every((status) => status === 200)).toBe(true)
    }
    expect(instance.stats()).toEqual({ sessions: 100, engines: 1, sequenceSessions: 50 })
    expect(instance.inspect('s-1999').engine).toBe(instance.engine)
  })

  it('an override for one session gives it an engine of its own; its reset takes it away', async () => {
    instance.useRoutes({ 'v1/users': { file: 'two.json' } }, 's-1999')
    expect(instance.stats().engines).toBe(2)
    instance.reset('s-1999')
    expect(instance.stats()).toMatchObject({ engines: 1, sessions: 99 })
  })
})

describe('a session that changes one notification', () => {
  it('copies that notification only; the others stay the shared fixtures', () => {
    const store = createNotificationsStore(buildNotifications(30))
    const fixtures = store.list()
    store.update(fixtures[3]!.id, { read: true }, 'a')
    const own = store.list('a')
    expect(own).toHaveLength(30)
    expect(own.filter((n, i) => n !== fixtures[i])).toEqual([{ ...fixtures[3], read: true }])
    expect(store.list('b')).toBe(fixtures)
    expect(fixtures[3]!.read).toBe(false)
    // A second change to the same notification edits the session's copy.
    store.update(fixtures[3]!.id, { viewed: true }, 'a')
    expect(store.list('a')[3]).toMatchObject({ read: true, viewed: true })
    expect(fixtures[3]).toMatchObject({ read: false })
  })
})
