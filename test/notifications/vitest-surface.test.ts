/**
 * The notifications handlers on the Vitest surface: `setupMockServer({ handlers })` serves them in
 * process and its reset after each test restores the store (the second test depends on it).
 */
import { expect, it } from 'vitest'
import { createNotificationsHandlers, type NotificationsListResponse } from 'mockyard/notifications'
import { setupMockServer } from 'mockyard/vitest'
import { CLOCK, DEFAULT_IDS, USERS, notifications } from './data.js'

const mocks = setupMockServer({
  handlers: createNotificationsHandlers({ notifications: notifications(), users: USERS, defaultUser: 'aka-user', clock: CLOCK }),
})

async function ids(): Promise<string[]> {
  const response = await fetch('http://api.test/api/v1/notifications')
  return ((await response.json()) as NotificationsListResponse).notifications.map((n) => n.id)
}

it('serves the endpoint in process and records the requests', async () => {
  const response = await fetch('http://api.test/api/v1/notifications/a1', { method: 'PATCH', body: '{"read":true}' })
  expect(response.status).toBe(200)
  expect(await ids()).toEqual(['a2', 'a4', 'a8', 'a9', 'a10'])
  expect(mocks.requests().map((record) => [record.method, record.status])).toEqual([
    ['PATCH', 200],
    ['GET', 200],
  ])
})

it('starts the next test from the fixtures', async () => {
  expect(await ids()).toEqual(DEFAULT_IDS)
})
