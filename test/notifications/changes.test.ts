/**
 * DELETE ?topicId=, PUT/PATCH /:id through real msw, and `server.resetHandlers()` undoing them
 * (docs/behaviour.md, "Notifications" and "Reset").
 */
import { getResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createNotificationsHandlers, type NotificationsListResponse } from 'mockyard/notifications'
import { CLOCK, DEFAULT_IDS, USERS, notifications } from './data.js'

const handlers = createNotificationsHandlers({ notifications: notifications(), users: USERS, defaultUser: 'aka-user', clock: CLOCK })
const server = setupServer(...handlers)

// msw 3 calls the option onUnhandledFrame, msw 2 onUnhandledRequest: an unhandled request fails under both.
beforeAll(() => server.listen({ onUnhandledFrame: 'error', ...({ onUnhandledRequest: 'error' } as object) }))
afterEach(() => server.resetHandlers())
afterAll(() => server.close())

const BASE = 'http://localhost/api/v1/notifications'
const ALL = 'includeRead=true&includeInactive=true'

async function ids(query = '', headers: Record<string, string> = {}): Promise<string[]> {
  const response = await fetch(`${BASE}?${query}`, { headers })
  expect(response.status).toBe(200)
  return ((await response.json()) as NotificationsListResponse).notifications.map((n) => n.id)
}

async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`http://localhost${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined }
}

describe('DELETE ?topicId=', () => {
  it('removes the current user’s notifications of that topic, read and inactive ones too; 204 without a body', async () => {
    const { status, text } = await send('DELETE', '/api/v1/notifications?topicId=BILLING')
    expect(status).toBe(204)
    expect(text).toBe('')
    // a1, a3 and a6 had topic BILLING.
    expect(await ids(ALL)).toEqual(['a2', 'a4', 'a5', 'a7', 'a8', 'a9', 'a10'])
  })

  it('leaves other users’ notifications of that topic alone', async () => {
    await send('DELETE', '/api/v1/notifications?topicId=BILLING')
    expect(await ids('', { 'X-Mock-User': 'other-user' })).toEqual(['o1', 'o2'])
  })

  it('acts for X-Mock-User', async () => {
    expect((await send('DELETE', '/api/notifications?topicId=BILLING', undefined, { 'X-Mock-User': 'other-user' })).status).toBe(204)
    expect(await ids('', { 'X-Mock-User': 'other-user' })).toEqual(['o2'])
    expect(await ids()).toEqual(DEFAULT_IDS)
  })

  it('a topic nobody has: 204, nothing changes', async () => {
    expect((await send('DELETE', '/api/v1/notifications?topicId=NOPE')).status).toBe(204)
    expect(await ids()).toEqual(DEFAULT_IDS)
  })

  it('without topicId: 400 naming it', async () => {
    const { status, body } = await send('DELETE', '/api/v1/notifications')
    expect(status).toBe(400)
    expect(body).toEqual({
      error: 'Bad Request',
      message: '[mockyard] topicId: missing. Send the topic whose notifications to delete: DELETE /api/v1/notifications?topicId=<topic>.',
      parameter: 'topicId',
      allowed: ['a topic'],
    })
  })

  it('with an empty topicId: 400', async () => {
    expect((await send('DELETE', '/api/v1/notifications?topicId=')).body).toMatchObject({ error: 'Bad Request', parameter: 'topicId' })
  })

  it('is undone by server.resetHandlers()', async () => {
    await send('DELETE', '/api/v1/notifications?topicId=CLAIMS')
    expect(await ids()).toEqual(['a1', 'a8', 'a9'])
    server.resetHandlers()
    expect(await ids()).toEqual(DEFAULT_IDS)
  })
})

describe('PUT / PATCH /:id', () => {
  it('PUT {"read": true}: 200 with the updated notification as listed', async () => {
    const { status, body } = await send('PUT', '/api/v1/notifications/a1', { read: true })
    expect(status).toBe(200)
    expect(body).toMatchObject({ id: 'a1', read: true, viewed: false, title: 'Bravo', updatedDate: '2018-01-26T19:31:03.000+0000' })
    expect(body).not.toHaveProperty('to')
    expect(body).not.toHaveProperty('sources')
    expect(await ids()).toEqual(['a2', 'a4', 'a8', 'a9', 'a10'])
    expect(await ids('includeRead=true&includeUnread=false')).toEqual(['a1', 'a3', 'a7'])
  })

  it('PATCH {"viewed": true}', async () => {
    const { status, body } = await send('PATCH', '/api/v1/notifications/a2', { viewed: true })
    expect(status).toBe(200)
    expect(body).toMatchObject({ id: 'a2', read: false, viewed: true })
    expect(await ids('includeViewed=false')).toEqual(['a1', 'a8', 'a9', 'a10'])
  })

  it('both fields at once, false too, on the unversioned path', async () => {
    const { status, body } = await send('PATCH', '/api/notifications/a7', { read: false, viewed: false })
    expect(status).toBe(200)
    expect(body).toMatchObject({ id: 'a7', read: false, viewed: false })
    expect(await ids()).toEqual(['a1', 'a2', 'a4', 'a7', 'a8', 'a9', 'a10'])
  })

  it('ignores other fields of the body', async () => {
    const { status, body } = await send('PUT', '/api/v1/notifications/a1', { read: true, title: 'changed', to: { userId: 'jane' } })
    expect(status).toBe(200)
    expect(body).toMatchObject({ id: 'a1', read: true, title: 'Bravo' })
  })

  it('an unknown id: 404 JSON', async () => {
    const { status, body } = await send('PUT', '/api/v1/notifications/nope', { read: true })
    expect(status).toBe(404)
    expect(body).toEqual({
      error: 'Not Found',
      message:
        '[mockyard] PUT notification "nope": the current user (aka-user) has no notification with this id. Use the id of one of their notifications, or send X-Mock-User with its recipient.',
      parameter: 'id',
    })
  })

  it('another user’s notification: 404, and it stays unchanged; its recipient may change it', async () => {
    expect((await send('PATCH', '/api/v1/notifications/o1', { read: true })).status).toBe(404)
    expect((await send('PATCH', '/api/v1/notifications/o1', { read: true }, { 'X-Mock-Support': 'true' })).status).toBe(404)
    expect(await ids('', { 'X-Mock-User': 'other-user' })).toEqual(['o1', 'o2'])
    expect((await send('PATCH', '/api/v1/notifications/o1', { read: true }, { 'X-Mock-User': 'other-user' })).status).toBe(200)
    expect(await ids('', { 'X-Mock-User': 'other-user' })).toEqual(['o2'])
  })

  it('same userId, other source (x1 is aka-user@PORTAL): 404', async () => {
    expect((await send('PUT', '/api/v1/notifications/x1', { read: true })).status).toBe(404)
  })

  it('a body that is not JSON: 400 naming the body', async () => {
    const { status, body } = await send('PUT', '/api/v1/notifications/a1', 'read=true')
    expect(status).toBe(400)
    expect(body).toMatchObject({ error: 'Bad Request', parameter: 'body', allowed: ['{"read": true|false}', '{"viewed": true|false}'] })
    expect(body.message).toMatch(/^\[mockyard\] the request body: not JSON \(.+\)\. Send \{"read": true\} or \{"viewed": true\}\.$/)
  })

  it('a body naming neither read nor viewed: 400', async () => {
    const { status, body } = await send('PUT', '/api/v1/notifications/a1', {})
    expect(status).toBe(400)
    expect(body).toEqual({
      error: 'Bad Request',
      message: '[mockyard] body: names neither read nor viewed. Send {"read": true} or {"viewed": true}.',
      parameter: 'body',
      allowed: ['{"read": true|false}', '{"viewed": true|false}'],
    })
  })

  it('read that is not a boolean: 400 naming read', async () => {
    const { status, body } = await send('PUT', '/api/v1/notifications/a1', { read: 'yes' })
    expect(status).toBe(400)
    expect(body).toEqual({
      error: 'Bad Request',
      message: '[mockyard] read="yes": not a boolean. Send {"read": true} or {"read": false}.',
      parameter: 'read',
      allowed: ['{"read": true|false}', '{"viewed": true|false}'],
    })
    expect(await ids()).toEqual(DEFAULT_IDS)
  })

  it('ids are percent-decoded', async () => {
    const h = createNotificationsHandlers({
      notifications: notifications().map((n) => (n.id === 'a1' ? { ...n, id: 'a 1/x' } : n)),
      users: USERS,
      defaultUser: 'aka-user',
      clock: CLOCK,
    })
    const response = await getResponse(h, new Request('http://localhost/api/v1/notifications/a%201%2Fx', { method: 'PATCH', body: '{"read":true}' }))
    expect(response?.status).toBe(200)
    expect(((await response!.json()) as { id: string }).id).toBe('a 1/x')
  })

  it('server.resetHandlers() undoes every change', async () => {
    await send('PUT', '/api/v1/notifications/a1', { read: true })
    await send('PATCH', '/api/v1/notifications/a4', { viewed: false })
    await send('DELETE', '/api/v1/notifications?topicId=GENERAL')
    expect(await ids(ALL)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a10'])
    expect(await ids()).toEqual(['a2', 'a4', 'a10'])
    server.resetHandlers()
    expect(await ids(ALL)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'a10'])
    const a1 = (await (await fetch(`${BASE}?limit=1`)).json()) as NotificationsListResponse
    expect(a1.notifications[0]).toMatchObject({ id: 'a1', read: false })
    const a4 = (await (await fetch(`${BASE}?includeUnviewed=false`)).json()) as NotificationsListResponse
    expect(a4.notifications.map((n) => [n.id, n.viewed])).toEqual([['a4', true]])
  })

  it('server.resetHandlers(...next) undoes the changes too', async () => {
    await send('PUT', '/api/v1/notifications/a1', { read: true })
    server.resetHandlers(...handlers)
    expect(await ids()).toEqual(DEFAULT_IDS)
  })
})

describe('sessions (X-Mockyard-Session, as the HTTP listener sends)', () => {
  it('a session’s changes stay in that session', async () => {
    const s1 = { 'X-Mockyard-Session': 's1' }
    await send('PUT', '/api/v1/notifications/a1', { read: true }, s1)
    await send('DELETE', '/api/v1/notifications?topicId=CLAIMS', undefined, s1)
    expect(await ids('', s1)).toEqual(['a8', 'a9'])
    expect(await ids('', { 'X-Mockyard-Session': 's2' })).toEqual(DEFAULT_IDS)
    expect(await ids()).toEqual(DEFAULT_IDS)
    server.resetHandlers()
    expect(await ids('', s1)).toEqual(DEFAULT_IDS)
  })
})

describe('getResponse (msw without a server)', () => {
  it('answers the endpoint and leaves other requests unanswered (other methods there too: the routes may extend these paths)', async () => {
    const response = await getResponse(handlers, new Request('http://localhost/api/v1/notifications?limit=2'))
    expect(response?.status).toBe(200)
    expect(((await response!.json()) as NotificationsListResponse).notifications.map((n) => n.id)).toEqual(['a1', 'a2'])
    expect(await getResponse(handlers, new Request('http://localhost/api/v1/users'))).toBeUndefined()
    expect(await getResponse(handlers, new Request('http://localhost/api/v1/notifications/a1/extra', { method: 'PUT', body: '{}' }))).toBeUndefined()
    expect(await getResponse(handlers, new Request('http://localhost/api/v1/notifications', { method: 'POST', body: '{}' }))).toBeUndefined()
    expect(await getResponse(handlers, new Request('http://localhost/api/v1/notifications/a1'))).toBeUndefined()
  })
})
