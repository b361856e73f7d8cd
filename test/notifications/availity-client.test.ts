/**
 * The real Availity web client (`@availity/api-core`'s AvNotification over axios) against the
 * notifications handlers served by the HTTP listener (`startMockServer({ handlers })`). It sends
 * `offset`/`limit`, brackets arrays (`nature[]`), adds cache busters, and pages with `all()`.
 */
import { AvNotification, type AvApiConfig } from '@availity/api-core'
import axios, { AxiosError } from 'axios'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createNotificationsHandlers, type ListedNotification, type NotificationsListResponse } from 'mockyard/notifications'
import { startMockServer, type RunningServer } from 'mockyard/node'
import { CLOCK, DEFAULT_IDS, USERS, notifications } from './data.js'

let server: RunningServer
let api: AvNotification

const isPlain = (value: unknown): value is Record<string, unknown> => Object.prototype.toString.call(value) === '[object Object]'

/** The deep merge api-core expects (lodash's `merge` in Availity's own wiring). */
function merge(target: Record<string, unknown>, ...sources: object[]): Record<string, unknown> {
  for (const source of sources) {
    for (const [key, value] of Object.entries(source ?? {})) {
      target[key] = isPlain(value) ? merge(isPlain(target[key]) ? (target[key] as Record<string, unknown>) : {}, value) : value
    }
  }
  return target
}

beforeAll(async () => {
  server = await startMockServer({
    handlers: createNotificationsHandlers({ notifications: notifications(), users: USERS, defaultUser: 'aka-user', clock: CLOCK }),
  })
  const http = axios.create({ baseURL: server.url })
  api = new AvNotification({
    http: (config) => http.request(config as object),
    promise: Promise,
    merge: merge as (target: object, ...sources: object[]) => object,
    config: {
      // api-core reads window.location to pick a host, and localStorage for the session buster.
      window: { location: { hostname: 'localhost' } },
      sessionBust: 'session-1',
      cacheBust: true,
    },
  })
})

afterEach(() => server.reset())
afterAll(() => server.stop())

const ids = (list: ListedNotification[]) => list.map((n) => n.id)

async function failure(promise: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await promise
  } catch (error) {
    if (error instanceof AxiosError && error.response) return { status: error.response.status, data: error.response.data }
    throw error
  }
  throw new Error('the request succeeded')
}

describe('the Availity client over the HTTP listener', () => {
  it('requests /api/v1/notifications', () => {
    expect(api.getRequestUrl()).toBe('/api/v1/notifications')
  })

  it('query(): the default listing; cache busters are ignored and kept in links.self.href', async () => {
    const response = await api.query<NotificationsListResponse>()
    expect(response.status).toBe(200)
    expect(ids(response.data.notifications)).toEqual(DEFAULT_IDS)
    expect(response.data).toMatchObject({ totalCount: 6, count: 6, offset: 0, limit: 50 })
    const href = new URL(response.data.links.self.href)
    expect(href.origin + href.pathname).toBe(`${server.url}/api/v1/notifications`)
    expect(href.searchParams.get('sessionBust')).toBe('session-1')
    expect(href.searchParams.get('cacheBust')).toMatch(/^\d+$/)
  })

  it('query() with filters: arrays go as nature[]', async () => {
    const response = await api.query<NotificationsListResponse>({ params: { nature: ['NEWS', 'TASK'], includeRead: true } })
    expect(new URL(response.data.links.self.href).searchParams.getAll('nature[]')).toEqual(['NEWS', 'TASK'])
    expect(ids(response.data.notifications)).toEqual(['a2', 'a4', 'a7', 'a9', 'a10'])
  })

  it('all(): pages with offset and limit until totalCount', async () => {
    const all = await api.all<ListedNotification>({ params: { limit: 3, includeRead: true, includeInactive: true } })
    expect(ids(all)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'a10'])
    const offsets = server.requests().map((record) => new URL(record.url, server.url).searchParams.get('offset'))
    expect(offsets.filter((offset) => offset !== null).sort()).toEqual(['3', '6', '9'])
  })

  it('X-Mock-User and X-Mock-Support as request headers', async () => {
    const mine = await api.query<NotificationsListResponse>({ headers: { 'X-Mock-User': 'other-user' } })
    expect(ids(mine.data.notifications)).toEqual(['o1', 'o2'])
    const support: AvApiConfig = { headers: { 'X-Mock-Support': 'true' }, params: { 'to.userId': ['other-user', 'jane'] } }
    expect(ids((await api.query<NotificationsListResponse>(support)).data.notifications)).toEqual(['j1', 'o1', 'o2'])
  })

  it('to.userId without support rights: 403 JSON', async () => {
    expect(await failure(api.query({ params: { 'to.userId': 'jane' } }))).toEqual({
      status: 403,
      data: {
        error: 'Forbidden',
        message:
          "[mockyard] to.userId: only support users may list other users' notifications. Send the header X-Mock-Support: true, or leave to.userId out to list the current user's.",
        parameter: 'to.userId',
      },
    })
  })

  it('bad input: 400 JSON naming the parameter', async () => {
    expect(await failure(api.query({ params: { limit: 0 } }))).toEqual({
      status: 400,
      data: { error: 'Bad Request', message: '[mockyard] limit=0: out of range. Use a whole number from 1 to 1000.', parameter: 'limit', allowed: ['1 to 1000'] },
    })
  })

  it('deleteByTopic(): 204, the topic is gone, reset() brings it back', async () => {
    const response = await api.deleteByTopic('CLAIMS')
    expect(response.status).toBe(204)
    expect(ids((await api.query<NotificationsListResponse>()).data.notifications)).toEqual(['a1', 'a8', 'a9'])
    server.reset()
    expect(ids((await api.query<NotificationsListResponse>()).data.notifications)).toEqual(DEFAULT_IDS)
  })

  it('update() and patch(): read and viewed', async () => {
    const updated = await api.update<ListedNotification>('a1', { read: true })
    expect([updated.status, updated.data.id, updated.data.read]).toEqual([200, 'a1', true])
    const patched = await api.patch<ListedNotification>('a2', { viewed: true })
    expect([patched.status, patched.data.id, patched.data.viewed]).toEqual([200, 'a2', true])
    expect(ids((await api.query<NotificationsListResponse>({ params: { includeViewed: false } })).data.notifications)).toEqual(['a8', 'a9', 'a10'])
    expect((await failure(api.update('o1', { read: true }))).status).toBe(404)
  })

  it('each test starts from the fixtures (afterEach reset)', async () => {
    expect(ids((await api.query<NotificationsListResponse>()).data.notifications)).toEqual(DEFAULT_IDS)
  })

  it('sessions of the listener keep their changes apart', async () => {
    await api.update('a1', { read: true }, { headers: { 'X-Mockyard-Session': 'left' } })
    const left = await api.query<NotificationsListResponse>({ headers: { 'X-Mockyard-Session': 'left' } })
    const right = await api.query<NotificationsListResponse>({ headers: { 'X-Mockyard-Session': 'right' } })
    expect(ids(left.data.notifications)).toEqual(['a2', 'a4', 'a8', 'a9', 'a10'])
    expect(ids(right.data.notifications)).toEqual(DEFAULT_IDS)
  })
})
