/**
 * GET /api/v1/notifications through real msw (`setupServer` + global fetch): filters, defaults,
 * sorting, paging, links, support users and every 400 (docs/behaviour.md, "Notifications").
 */
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { NOTIFICATION_SORT_FIELDS, createNotificationsHandlers, type NotificationsListResponse } from 'mockyard/notifications'
import { A8_SOURCES, CLOCK, DEFAULT_IDS, USERS, notifications } from './data.js'

const server = setupServer(...createNotificationsHandlers({ notifications: notifications(), users: USERS, defaultUser: 'aka-user', clock: CLOCK }))

// msw 3 calls the option onUnhandledFrame, msw 2 onUnhandledRequest: an unhandled request fails under both.
beforeAll(() => server.listen({ onUnhandledFrame: 'error', ...({ onUnhandledRequest: 'error' } as object) }))
afterEach(() => server.resetHandlers())
afterAll(() => server.close())

const ORIGIN = 'http://localhost'

async function get(query = '', headers: Record<string, string> = {}, path = '/api/v1/notifications') {
  const response = await fetch(`${ORIGIN}${path}${query ? `?${query}` : ''}`, { headers })
  return { status: response.status, contentType: response.headers.get('content-type'), body: await response.json() }
}

/** The ids a successful listing returns, in order. */
async function ids(query = '', headers: Record<string, string> = {}): Promise<string[]> {
  const { status, body } = await get(query, headers)
  expect(status).toBe(200)
  return (body as NotificationsListResponse).notifications.map((n) => n.id)
}

describe('defaults', () => {
  it('lists the current user’s active unread notifications, newest delivery first, with the list fields', async () => {
    const { status, contentType, body } = await get()
    expect(status).toBe(200)
    expect(contentType).toMatch(/^application\/json/)
    expect(body).toEqual({
      totalCount: 6,
      count: 6,
      offset: 0,
      limit: 50,
      links: { self: { href: 'http://localhost/api/v1/notifications' } },
      notifications: expect.any(Array),
    })
    expect(body.notifications.map((n: { id: string }) => n.id)).toEqual(DEFAULT_IDS)
  })

  it('lists each notification without `to` and without `sources`', async () => {
    const { body } = await get()
    expect(body.notifications[0]).toEqual({
      id: 'a1',
      createdDate: '2018-01-26T19:31:03.000+0000',
      updatedDate: '2018-01-26T19:31:03.000+0000',
      nature: 'ALERT',
      type: 'MESSAGE',
      subject: 'Subject of a1',
      title: 'Bravo',
      subtitle: 'Subtitle of a1',
      message: 'Message of notification a1.',
      link: '/notifications/a1',
      linkTarget: '_self',
      activeDate: '2018-01-01T00:00:00.000+0000',
      expirationDate: '2099-12-31T23:59:59.000+0000',
      lastDeliveryDate: '2020-05-10T12:00:00.000+0000',
      topic: 'BILLING',
      read: false,
      viewed: false,
      interruptIndicator: false,
    })
    for (const n of body.notifications) {
      expect(n).not.toHaveProperty('to')
      expect(n).not.toHaveProperty('sources')
    }
  })

  it('serves the unversioned path as the same endpoint', async () => {
    const versioned = await get('includeRead=true&limit=3')
    const unversioned = await get('includeRead=true&limit=3', {}, '/api/notifications')
    expect(unversioned.status).toBe(200)
    expect(unversioned.body.notifications).toEqual(versioned.body.notifications)
    expect(unversioned.body.links.self.href).toBe('http://localhost/api/notifications?includeRead=true&limit=3')
  })

  it('ignores case and a trailing slash in the path, and answers any origin', async () => {
    expect((await get('', {}, '/API/V1/Notifications/')).body.notifications.map((n: { id: string }) => n.id)).toEqual(DEFAULT_IDS)
    const response = await fetch('https://portal.example.com:8443/api/v1/notifications?limit=1')
    const body = (await response.json()) as NotificationsListResponse
    expect(body.notifications.map((n) => n.id)).toEqual(['a1'])
    expect(body.links.self.href).toBe('https://portal.example.com:8443/api/v1/notifications?limit=1')
  })

  it('ignores unknown parameters (cache busters)', async () => {
    expect(await ids('cacheBust=1718000000000&sessionBust=abc&foo=bar')).toEqual(DEFAULT_IDS)
  })
})

describe('filters', () => {
  it('nature: one value', async () => {
    expect(await ids('nature=ALERT')).toEqual(['a1', 'a8'])
  })

  it('nature: repeated means any of them', async () => {
    expect(await ids('nature=NEWS&nature=TASK')).toEqual(['a2', 'a4', 'a9', 'a10'])
  })

  it('nature[]: the bracket form, as axios sends arrays', async () => {
    expect(await ids('nature[]=NEWS&nature[]=TASK')).toEqual(['a2', 'a4', 'a9', 'a10'])
    expect(await ids('nature%5B%5D=ALERT')).toEqual(['a1', 'a8'])
  })

  it('nature: a value no notification has lists nothing', async () => {
    const { body } = await get('nature=NONE')
    expect(body).toMatchObject({ totalCount: 0, count: 0, notifications: [] })
  })

  it('type', async () => {
    expect(await ids('type=REMINDER')).toEqual(['a2', 'a9'])
  })

  it('topic', async () => {
    expect(await ids('topic=CLAIMS')).toEqual(['a2', 'a4', 'a10'])
  })

  it('an empty filter value counts as absent', async () => {
    expect(await ids('type=&topic=&nature=')).toEqual(DEFAULT_IDS)
  })

  it('includeRead=true adds the read ones', async () => {
    expect(await ids('includeRead=true')).toEqual(['a1', 'a2', 'a3', 'a4', 'a7', 'a8', 'a9', 'a10'])
  })

  it('includeUnread=false alone lists nothing (read ones stay out by default)', async () => {
    expect(await ids('includeUnread=false')).toEqual([])
  })

  it('includeRead=true&includeUnread=false lists only the read ones', async () => {
    expect(await ids('includeRead=true&includeUnread=false')).toEqual(['a3', 'a7'])
  })

  it('includeViewed=false leaves the viewed ones out', async () => {
    expect(await ids('includeViewed=false')).toEqual(['a1', 'a2', 'a8', 'a9', 'a10'])
  })

  it('includeUnviewed=false lists only the viewed ones', async () => {
    expect(await ids('includeUnviewed=false')).toEqual(['a4'])
    expect(await ids('includeUnviewed=false&includeRead=true')).toEqual(['a4', 'a7'])
  })

  it('includeViewed=false&includeUnviewed=false lists nothing', async () => {
    expect(await ids('includeViewed=false&includeUnviewed=false')).toEqual([])
  })

  it('includeInactive=true adds the scheduled and the expired ones', async () => {
    expect(await ids('includeInactive=true')).toEqual(['a1', 'a2', 'a4', 'a5', 'a6', 'a8', 'a9', 'a10'])
  })

  it('booleans accept any case', async () => {
    expect(await ids('includeRead=TRUE&includeInactive=True')).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'a10'])
    expect(await ids('includeRead=False')).toEqual(DEFAULT_IDS)
  })

  it('includeSources=true adds `sources` to every notification, [] when it has none', async () => {
    const { body } = await get('includeSources=true')
    const listed = body as NotificationsListResponse
    expect(listed.notifications.map((n) => [n.id, n.sources])).toEqual([
      ['a1', []],
      ['a2', []],
      ['a4', []],
      ['a8', A8_SOURCES],
      ['a9', []],
      ['a10', []],
    ])
    for (const n of listed.notifications) expect(n).not.toHaveProperty('to')
  })

  it('includeSources=false (explicit) lists no `sources` key', async () => {
    const { body } = await get('includeSources=false&nature=ALERT')
    expect(body.notifications.map((n: object) => 'sources' in n)).toEqual([false, false])
  })

  it('combines filters with AND', async () => {
    expect(await ids('nature=ALERT&includeRead=true&includeInactive=true')).toEqual(['a1', 'a3', 'a5', 'a8'])
    expect(await ids('nature=ALERT&includeRead=true&includeInactive=true&topic=BILLING')).toEqual(['a1', 'a3'])
    expect(await ids('nature=ALERT&nature=NEWS&type=REMINDER&includeRead=true')).toEqual(['a2', 'a3', 'a9'])
    expect(await ids('topic=CLAIMS&includeInactive=true&includeViewed=false')).toEqual(['a2', 'a5', 'a10'])
    expect(await ids('topic=BILLING&type=REMINDER')).toEqual([])
  })
})

describe('sorting', () => {
  it('sortDirection=asc reverses the default order; equal dates still tie by id ascending', async () => {
    expect(await ids('sortDirection=asc')).toEqual(['a9', 'a10', 'a8', 'a4', 'a2', 'a1'])
    expect(await ids('sortDirection=desc')).toEqual(DEFAULT_IDS)
  })

  it('sortDirection ignores case', async () => {
    expect(await ids('sortDirection=ASC')).toEqual(['a9', 'a10', 'a8', 'a4', 'a2', 'a1'])
    expect(await ids('sortDirection=Desc')).toEqual(DEFAULT_IDS)
  })

  it('sortBy a text field: case-insensitive, digit runs as numbers', async () => {
    // Titles: a1 Bravo, a2 alpha, a4 Delta, a8 'echo 10', a9 'echo 9', a10 Echo.
    expect(await ids('sortBy=title&sortDirection=asc')).toEqual(['a2', 'a1', 'a4', 'a10', 'a9', 'a8'])
    expect(await ids('sortBy=title')).toEqual(['a8', 'a9', 'a10', 'a4', 'a1', 'a2'])
  })

  it('sortBy a field every notification shares: ties break by id ascending in both directions', async () => {
    expect(await ids('sortBy=createdDate')).toEqual(['a1', 'a2', 'a4', 'a8', 'a9', 'a10'])
    expect(await ids('sortBy=createdDate&sortDirection=asc')).toEqual(['a1', 'a2', 'a4', 'a8', 'a9', 'a10'])
  })

  it('sortBy id sorts digit runs as numbers', async () => {
    expect(await ids('sortBy=id&sortDirection=asc')).toEqual(['a1', 'a2', 'a4', 'a8', 'a9', 'a10'])
    expect(await ids('sortBy=id')).toEqual(['a10', 'a9', 'a8', 'a4', 'a2', 'a1'])
  })

  it('sortBy nature, ties by id', async () => {
    // ALERT: a1 a8; NEWS: a2 a9; TASK: a4 a10.
    expect(await ids('sortBy=nature&sortDirection=asc')).toEqual(['a1', 'a8', 'a2', 'a9', 'a4', 'a10'])
    expect(await ids('sortBy=nature&sortDirection=desc')).toEqual(['a4', 'a10', 'a2', 'a9', 'a1', 'a8'])
  })

  it('sortBy expirationDate with inactive ones included', async () => {
    // a6 expired in 2018; every other one expires at the same instant: ties by id.
    expect(await ids('sortBy=expirationDate&sortDirection=asc&includeInactive=true')).toEqual(['a6', 'a1', 'a2', 'a4', 'a5', 'a8', 'a9', 'a10'])
  })

  it('accepts every sort field', async () => {
    for (const field of NOTIFICATION_SORT_FIELDS) {
      const { status, body } = await get(`sortBy=${field}`)
      expect([field, status, body.totalCount]).toEqual([field, 200, 6])
    }
  })
})

describe('paging', () => {
  it('limit takes the first page; totalCount counts every match, count the page', async () => {
    const { body } = await get('limit=4')
    expect(body).toMatchObject({ totalCount: 6, count: 4, offset: 0, limit: 4 })
    expect(body.notifications.map((n: { id: string }) => n.id)).toEqual(['a1', 'a2', 'a4', 'a8'])
  })

  it('the last page may be partial', async () => {
    const { body } = await get('offset=4&limit=4')
    expect(body).toMatchObject({ totalCount: 6, count: 2, offset: 4, limit: 4 })
    expect(body.notifications.map((n: { id: string }) => n.id)).toEqual(['a9', 'a10'])
  })

  it('an offset in the middle', async () => {
    expect(await ids('offset=1&limit=2')).toEqual(['a2', 'a4'])
  })

  it('an offset at the end lists nothing', async () => {
    const { body } = await get('offset=6')
    expect(body).toMatchObject({ totalCount: 6, count: 0, offset: 6, limit: 50, notifications: [] })
  })

  it('an offset past the end lists nothing and echoes the offset', async () => {
    const { body } = await get('offset=1000000&limit=10')
    expect(body).toMatchObject({ totalCount: 6, count: 0, offset: 1000000, limit: 10, notifications: [] })
  })

  it('limit=1 and limit=1000 are the bounds', async () => {
    expect(await ids('limit=1')).toEqual(['a1'])
    expect((await get('limit=1000')).body).toMatchObject({ count: 6, limit: 1000 })
  })

  it('pages with sorting and filters together', async () => {
    expect(await ids('includeRead=true&sortDirection=asc&offset=2&limit=3')).toEqual(['a8', 'a7', 'a4'])
  })
})

describe('links.self.href', () => {
  it('is the absolute request URL, query included, as sent', async () => {
    const query = 'nature[]=ALERT&limit=2&offset=0&cacheBust=123'
    const { body } = await get(query)
    expect(body.links.self.href).toBe(`http://localhost/api/v1/notifications?${query}`)
  })
})

describe('users', () => {
  it('X-Mock-User picks the current user', async () => {
    expect(await ids('', { 'X-Mock-User': 'other-user' })).toEqual(['o1', 'o2'])
    expect(await ids('', { 'x-mock-user': 'jane' })).toEqual(['j1'])
  })

  it('a user without notifications gets an empty list', async () => {
    const { status, body } = await get('', { 'X-Mock-User': 'nobody' })
    expect(status).toBe(200)
    expect(body).toMatchObject({ totalCount: 0, count: 0, notifications: [] })
  })

  it('the current user’s source (from `users`) must match too: aka-user@PORTAL is someone else', async () => {
    expect(await ids('includeRead=true&includeInactive=true')).not.toContain('x1')
  })

  it('an empty X-Mock-User falls back to defaultUser', async () => {
    expect(await ids('', { 'X-Mock-User': '' })).toEqual(DEFAULT_IDS)
  })
})

describe('support users', () => {
  const SUPPORT = { 'X-Mock-Support': 'true' }

  it('to.userId without support rights: 403 naming the parameter', async () => {
    const { status, body } = await get('to.userId=other-user')
    expect(status).toBe(403)
    expect(body).toEqual({
      error: 'Forbidden',
      message:
        "[mockyard] to.userId: only support users may list other users' notifications. Send the header X-Mock-Support: true, or leave to.userId out to list the current user's.",
      parameter: 'to.userId',
    })
  })

  it('to.userSource without support rights: 403 naming the parameter', async () => {
    const { status, body } = await get('to.userSource=AVAILITY')
    expect(status).toBe(403)
    expect(body).toMatchObject({ error: 'Forbidden', parameter: 'to.userSource' })
  })

  it('to.userId[] without support rights: 403 naming to.userId', async () => {
    const { status, body } = await get('to.userId[]=jane')
    expect([status, body.parameter]).toEqual([403, 'to.userId'])
  })

  it('X-Mock-Support other than true grants nothing; TRUE is true', async () => {
    expect((await get('to.userId=jane', { 'X-Mock-Support': 'false' })).status).toBe(403)
    expect((await get('to.userId=jane', { 'X-Mock-Support': 'yes' })).status).toBe(403)
    expect(await ids('to.userId=jane', { 'X-Mock-Support': 'TRUE' })).toEqual(['j1'])
  })

  it('to.userId selects another user’s notifications; the other filters still apply', async () => {
    expect(await ids('to.userId=other-user', SUPPORT)).toEqual(['o1', 'o2'])
    expect(await ids('to.userId=other-user&includeRead=true', SUPPORT)).toEqual(['o3', 'o1', 'o2'])
    expect(await ids('to.userId=other-user&topic=CLAIMS', SUPPORT)).toEqual(['o2'])
  })

  it('to.userId may repeat, also as to.userId[]', async () => {
    expect(await ids('to.userId=other-user&to.userId=jane', SUPPORT)).toEqual(['j1', 'o1', 'o2'])
    expect(await ids('to.userId[]=other-user&to.userId[]=jane', SUPPORT)).toEqual(['j1', 'o1', 'o2'])
  })

  it('to.userId selects by userId whatever the source', async () => {
    expect(await ids('to.userId=aka-user&limit=3', SUPPORT)).toEqual(['x1', 'a1', 'a2'])
  })

  it('to.userSource selects every user of that source; with to.userId both apply', async () => {
    expect(await ids('to.userSource=PORTAL', SUPPORT)).toEqual(['j1', 'x1'])
    expect(await ids('to.userSource=PORTAL&to.userId=aka-user', SUPPORT)).toEqual(['x1'])
    expect(await ids('to.userSource=AVAILITY&to.userId=jane', SUPPORT)).toEqual([])
  })

  it('support rights without to.* list the current user’s notifications', async () => {
    expect(await ids('', SUPPORT)).toEqual(DEFAULT_IDS)
    expect(await ids('', { ...SUPPORT, 'X-Mock-User': 'jane' })).toEqual(['j1'])
  })

  it('paging and totals over another user’s notifications', async () => {
    const { body } = await get('to.userId=other-user&includeRead=true&offset=1&limit=1', SUPPORT)
    expect(body).toMatchObject({ totalCount: 3, count: 1, offset: 1, limit: 1 })
    expect(body.notifications.map((n: { id: string }) => n.id)).toEqual(['o1'])
  })

  it('403 comes before 400 when a request has both problems', async () => {
    expect((await get('to.userId=jane&limit=0')).status).toBe(403)
  })
})

describe('bad input: 400 naming the parameter and the allowed values', () => {
  const cases: Array<[query: string, body: Record<string, unknown>]> = [
    [
      'includeRead=maybe',
      { message: '[mockyard] includeRead=maybe: not a boolean. Use true or false.', parameter: 'includeRead', allowed: ['true', 'false'] },
    ],
    [
      'includeSources=1',
      { message: '[mockyard] includeSources=1: not a boolean. Use true or false.', parameter: 'includeSources', allowed: ['true', 'false'] },
    ],
    [
      'includeInactive=',
      { message: '[mockyard] includeInactive=: not a boolean. Use true or false.', parameter: 'includeInactive', allowed: ['true', 'false'] },
    ],
    [
      'sortDirection=sideways',
      { message: '[mockyard] sortDirection=sideways: not a sort direction. Use asc or desc.', parameter: 'sortDirection', allowed: ['asc', 'desc'] },
    ],
    [
      'sortBy=notAField',
      {
        message:
          '[mockyard] sortBy=notAField: not a sortable field. Use one of createdDate, updatedDate, activeDate, expirationDate, lastDeliveryDate, id, nature, type, subject, title, subtitle, message, link, linkTarget, topic.',
        parameter: 'sortBy',
        allowed: [
          'createdDate',
          'updatedDate',
          'activeDate',
          'expirationDate',
          'lastDeliveryDate',
          'id',
          'nature',
          'type',
          'subject',
          'title',
          'subtitle',
          'message',
          'link',
          'linkTarget',
          'topic',
        ],
      },
    ],
    ['sortBy=read', { parameter: 'sortBy' }],
    ['sortBy=TITLE', { parameter: 'sortBy' }],
    ['offset=-1', { message: '[mockyard] offset=-1: not a whole number. Use a whole number of 0 or more.', parameter: 'offset', allowed: ['0 or more'] }],
    ['offset=1.5', { message: '[mockyard] offset=1.5: not a whole number. Use a whole number of 0 or more.', parameter: 'offset', allowed: ['0 or more'] }],
    ['offset=abc', { parameter: 'offset', allowed: ['0 or more'] }],
    // Empty: refused as an empty boolean is, not read as the default.
    ['offset=', { message: '[mockyard] offset=: not a whole number. Use a whole number of 0 or more.', parameter: 'offset', allowed: ['0 or more'] }],
    ['limit=', { message: '[mockyard] limit=: not a whole number. Use a whole number from 1 to 1000.', parameter: 'limit', allowed: ['1 to 1000'] }],
    ['includeRead=', { message: '[mockyard] includeRead=: not a boolean. Use true or false.', parameter: 'includeRead', allowed: ['true', 'false'] }],
    ['limit=0', { message: '[mockyard] limit=0: out of range. Use a whole number from 1 to 1000.', parameter: 'limit', allowed: ['1 to 1000'] }],
    ['limit=100000', { message: '[mockyard] limit=100000: out of range. Use a whole number from 1 to 1000.', parameter: 'limit', allowed: ['1 to 1000'] }],
    ['limit=1001', { message: '[mockyard] limit=1001: out of range. Use a whole number from 1 to 1000.', parameter: 'limit', allowed: ['1 to 1000'] }],
    ['limit=-5', { message: '[mockyard] limit=-5: not a whole number. Use a whole number from 1 to 1000.', parameter: 'limit', allowed: ['1 to 1000'] }],
    ['type=A&type=B', { message: '[mockyard] type: given 2 times. Send type once.', parameter: 'type', allowed: ['a single value'] }],
    ['limit=10&limit=20', { parameter: 'limit', allowed: ['a single value'] }],
    ['includeRead=true&includeRead=false', { message: '[mockyard] includeRead: given 2 times. Send includeRead once, as true or false.', parameter: 'includeRead' }],
  ]

  for (const [query, expected] of cases) {
    it(query, async () => {
      const { status, contentType, body } = await get(query)
      expect(status).toBe(400)
      expect(contentType).toMatch(/^application\/json/)
      expect(body).toMatchObject({ error: 'Bad Request', ...expected })
      expect(Object.keys(body).sort()).toEqual(['allowed', 'error', 'message', 'parameter'])
    })
  }

  it('reports the first bad parameter in the documented order of parameters', async () => {
    expect((await get('limit=0&includeRead=maybe&sortBy=nope')).body.parameter).toBe('includeRead')
    expect((await get('limit=0&sortBy=nope')).body.parameter).toBe('sortBy')
  })
})
