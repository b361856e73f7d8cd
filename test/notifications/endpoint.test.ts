/**
 * The endpoint without a server: `handleNotificationsRequest` over a store, msw's `getResponse`
 * for the clock and the base path, and the factory's checks of its options.
 */
import { getResponse, HttpHandler } from 'msw'
import { describe, expect, it } from 'vitest'
import { ConfigError } from 'mockyard'
import {
  NotificationsHandler,
  buildExpiredNotification,
  buildNotification,
  buildNotifications,
  buildScheduledNotification,
  compareText,
  createNotificationsHandlers,
  createNotificationsStore,
  handleNotificationsRequest,
  parseNotificationDate,
  parseNotificationsQuery,
  NotificationsRequestError,
  type Notification,
  type NotificationsListResponse,
} from 'mockyard/notifications'

const URL_LIST = 'http://localhost/api/v1/notifications'

async function listIds(handlers: ReturnType<typeof createNotificationsHandlers>, query = ''): Promise<string[]> {
  const response = await getResponse(handlers, new Request(`${URL_LIST}?${query}`))
  expect(response?.status).toBe(200)
  return ((await response!.json()) as NotificationsListResponse).notifications.map((n) => n.id)
}

describe('createNotificationsHandlers and the methods of its paths', () => {
  const handlers = createNotificationsHandlers({ notifications: buildNotifications(2), defaultUser: 'aka-user' })
  const answer = (path: string, method: string) => getResponse(handlers, new Request(`http://localhost${path}`, { method }))

  it('HEAD of the list answers as GET without a body; other methods are left to what comes next (routes that extend these paths)', async () => {
    const head = await answer('/api/v1/notifications', 'HEAD')
    expect([head?.status, head?.body]).toEqual([200, null])
    expect(await answer('/api/v1/notifications', 'POST')).toBeUndefined()
    expect(await answer('/api/v1/notifications/read-all', 'POST')).toBeUndefined()
    expect(await answer('/api/v1/notifications', 'OPTIONS')).toBeUndefined()
  })
})

describe('handleNotificationsRequest', () => {
  const store = createNotificationsStore(buildNotifications(3))
  const options = { defaultUser: 'aka-user' }

  it('answers a list request', async () => {
    const response = await handleNotificationsRequest(new Request(`${URL_LIST}?limit=2`), store, options)
    expect(response.status).toBe(200)
    const body = (await response.json()) as NotificationsListResponse
    expect(body).toMatchObject({ totalCount: 3, count: 2, offset: 0, limit: 2, links: { self: { href: `${URL_LIST}?limit=2` } } })
    expect(body.notifications.map((n) => n.id)).toEqual(['n-1', 'n-2'])
  })

  it('another path: 404 JSON', async () => {
    const response = await handleNotificationsRequest(new Request('http://localhost/api/v1/users'), store, options)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({
      error: 'Not Found',
      message: '[mockyard] GET /api/v1/users: not a notifications path. Use /api/v1/notifications.',
    })
  })

  it('another method: 405 with Allow', async () => {
    const list = await handleNotificationsRequest(new Request(URL_LIST, { method: 'POST', body: '{}' }), store, options)
    expect(list.status).toBe(405)
    expect(list.headers.get('allow')).toBe('GET, HEAD, DELETE')
    expect(await list.json()).toEqual({
      error: 'Method Not Allowed',
      message: '[mockyard] POST /api/v1/notifications: this path answers GET, HEAD and DELETE. Use one of them.',
      allowed: ['GET', 'HEAD', 'DELETE'],
    })
    const item = await handleNotificationsRequest(new Request(`${URL_LIST}/n-1`), store, options)
    expect([item.status, item.headers.get('allow')]).toEqual([405, 'PUT, PATCH'])
  })

  it('HEAD of the list: the status and headers GET gets, no body', async () => {
    const response = await handleNotificationsRequest(new Request(`${URL_LIST}?limit=2`, { method: 'HEAD' }), store, options)
    const get = await handleNotificationsRequest(new Request(`${URL_LIST}?limit=2`), store, options)
    expect([response.status, response.headers.get('content-type'), response.headers.get('content-length')]).toEqual([200, get.headers.get('content-type'), get.headers.get('content-length')])
    expect(response.body).toBe(null)
  })

  it('reads a PUT body from a clone: the request stays readable for whoever logs it', async () => {
    const request = new Request(`${URL_LIST}/n-1`, { method: 'PUT', body: '{"viewed":true}' })
    expect((await handleNotificationsRequest(request, createNotificationsStore(buildNotifications(1)), options)).status).toBe(200)
    expect(request.bodyUsed).toBe(false)
    expect(await request.text()).toBe('{"viewed":true}')
  })

  it('changes the store it is given', async () => {
    const own = createNotificationsStore(buildNotifications(2))
    const response = await handleNotificationsRequest(new Request(`${URL_LIST}/n-2`, { method: 'PATCH', body: '{"read":true}' }), own, options)
    expect(response.status).toBe(200)
    expect(own.list().map((n) => [n.id, n.read])).toEqual([
      ['n-1', false],
      ['n-2', true],
    ])
    expect(own.fixtures.map((n) => n.read)).toEqual([false, false])
    own.reset()
    expect(own.list().map((n) => n.read)).toEqual([false, false])
  })
})

describe('the clock decides what is active', () => {
  const notifications = [
    buildNotification({ id: 'always', activeDate: '2018-01-01T00:00:00.000+0000', expirationDate: '2099-12-31T23:59:59.000+0000' }),
    buildScheduledNotification({ id: 'scheduled' }),
    buildExpiredNotification({ id: 'expired' }),
    buildNotification({
      id: 'window',
      activeDate: '2020-03-01T10:00:00.000+0000',
      // The same instant as 2020-03-01T12:00:00.000+0000, in another zone.
      expirationDate: '2020-03-01T07:00:00.000-0500',
      lastDeliveryDate: '2017-01-01T00:00:00.000+0000',
    }),
  ]
  const at = (date: string) => createNotificationsHandlers({ notifications, defaultUser: 'aka-user', clock: () => parseNotificationDate(date) })

  it('before every activeDate: nothing is active', async () => {
    expect(await listIds(at('2017-12-31T23:59:59.999+0000'))).toEqual([])
    expect(await listIds(at('2017-12-31T23:59:59.999+0000'), 'includeInactive=true')).toEqual(['always', 'expired', 'scheduled', 'window'])
  })

  it('between the expired one’s dates: it is active, the scheduled one is not', async () => {
    expect(await listIds(at('2018-02-01T00:00:00.000+0000'))).toEqual(['always', 'expired'])
  })

  it('activeDate and expirationDate themselves are inside the window, offsets compared as instants', async () => {
    expect(await listIds(at('2020-03-01T09:59:59.999+0000'))).toEqual(['always'])
    expect(await listIds(at('2020-03-01T10:00:00.000+0000'))).toEqual(['always', 'window'])
    expect(await listIds(at('2020-03-01T12:00:00.000+0000'))).toEqual(['always', 'window'])
    expect(await listIds(at('2020-03-01T12:00:00.001+0000'))).toEqual(['always'])
  })

  it('after the scheduled one starts: it is active, the expired one is not', async () => {
    expect(await listIds(at('2098-06-01T00:00:00.000+0000'))).toEqual(['always', 'scheduled'])
  })

  it('after every expirationDate: nothing is active', async () => {
    expect(await listIds(at('2100-01-01T00:00:00.000+0000'))).toEqual([])
  })

  it('the clock is asked on every request', async () => {
    let now = '2017-01-01T00:00:00.000+0000'
    const handlers = createNotificationsHandlers({ notifications, defaultUser: 'aka-user', clock: () => parseNotificationDate(now) })
    expect(await listIds(handlers)).toEqual([])
    now = '2020-03-01T11:00:00.000+0000'
    expect(await listIds(handlers)).toEqual(['always', 'window'])
  })

  it('the default clock is the real one (fixtures are active from 2018 to 2099)', async () => {
    expect(await listIds(createNotificationsHandlers({ notifications, defaultUser: 'aka-user' }))).toEqual(['always'])
  })
})

describe('date sorting compares instants, not text', () => {
  it('orders dates written in different zones', async () => {
    const handlers = createNotificationsHandlers({
      notifications: [
        buildNotification({ id: 'utc-noon', lastDeliveryDate: '2020-01-01T12:00:00.000+0000' }),
        buildNotification({ id: 'ny-eight', lastDeliveryDate: '2020-01-01T08:00:00.000-0500' }), // 13:00 UTC
        buildNotification({ id: 'paris-one', lastDeliveryDate: '2020-01-01T13:30:00.000+0100' }), // 12:30 UTC
      ],
      defaultUser: 'aka-user',
    })
    expect(await listIds(handlers)).toEqual(['ny-eight', 'paris-one', 'utc-noon'])
    expect(await listIds(handlers, 'sortDirection=asc')).toEqual(['utc-noon', 'paris-one', 'ny-eight'])
  })
})

describe('basePath', () => {
  const notifications = buildNotifications(2)

  it('moves both paths; the default ones are then not answered', async () => {
    const handlers = createNotificationsHandlers({ notifications, defaultUser: 'aka-user', basePath: '/mock/' })
    const response = await getResponse(handlers, new Request('http://localhost/mock/v1/notifications'))
    expect(((await response!.json()) as NotificationsListResponse).notifications.map((n) => n.id)).toEqual(['n-1', 'n-2'])
    expect((await getResponse(handlers, new Request('http://localhost/mock/notifications')))?.status).toBe(200)
    expect(await getResponse(handlers, new Request(URL_LIST))).toBeUndefined()
  })

  it('may be empty', async () => {
    const handlers = createNotificationsHandlers({ notifications, defaultUser: 'aka-user', basePath: '' })
    expect((await getResponse(handlers, new Request('http://localhost/v1/notifications')))?.status).toBe(200)
    expect((await getResponse(handlers, new Request('http://localhost/notifications')))?.status).toBe(200)
  })

  it('must be a path', () => {
    expect(() => createNotificationsHandlers({ notifications, defaultUser: 'aka-user', basePath: 'http://localhost/api' })).toThrow(
      new TypeError(
        '[mockyard] basePath "http://localhost/api": not a path. Give the path in front of /v1/notifications, such as /api; the handlers answer any origin.',
      ),
    )
  })
})

describe('createNotificationsHandlers', () => {
  it('returns a plain array of msw HttpHandlers sharing one store', () => {
    const handlers = createNotificationsHandlers({ notifications: buildNotifications(2), defaultUser: 'aka-user' })
    expect(Array.isArray(handlers)).toBe(true)
    expect(handlers.length).toBeGreaterThan(0)
    for (const handler of handlers) {
      expect(handler).toBeInstanceOf(HttpHandler)
      expect(handler).toBeInstanceOf(NotificationsHandler)
    }
    const stores = new Set(handlers.map((handler) => (handler as NotificationsHandler).store))
    expect(stores.size).toBe(1)
  })

  it('copies the notifications: changing the input afterwards changes nothing', async () => {
    const input = buildNotifications(2)
    const handlers = createNotificationsHandlers({ notifications: input, defaultUser: 'aka-user' })
    input[0].read = true
    input.push(buildNotification({ id: 'late' }))
    expect(await listIds(handlers)).toEqual(['n-1', 'n-2'])
  })

  it('refuses a missing defaultUser', () => {
    expect(() => createNotificationsHandlers({ notifications: [], defaultUser: '' })).toThrow(
      new TypeError(
        '[mockyard] defaultUser "": not a userId. Set defaultUser to the userId whose notifications a request without X-Mock-User lists.',
      ),
    )
  })

  it('reports every problem of the notifications at once, with JSON pointers', () => {
    const broken = [
      buildNotification({ id: 'ok' }),
      { ...buildNotification({ id: 'bad-date' }), activeDate: '26/01/2018' },
      { ...buildNotification({ id: 'ok' }) },
      { ...buildNotification({ id: 'no-to' }), to: undefined },
    ] as unknown as Notification[]
    let error: unknown
    try {
      createNotificationsHandlers({ notifications: broken, defaultUser: 'aka-user' })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems.map((p) => [p.file, p.pointer, p.message])).toEqual([
      ['createNotificationsHandlers()', '/notifications/1/activeDate', '"26/01/2018" is not a date-time with a zone'],
      ['createNotificationsHandlers()', '/notifications/2/id', 'the id "ok" is already used by /notifications/0'],
      ['createNotificationsHandlers()', '/notifications/3/to', 'the recipient must be { userId, userSource } with two strings'],
    ])
    expect((error as Error).message).toMatch(/^\[mockyard\] the configuration has 3 problems:\n/)
  })

  it('refuses notifications that are not an array', () => {
    expect(() => createNotificationsHandlers({ notifications: {} as unknown as Notification[], defaultUser: 'aka-user' })).toThrow(ConfigError)
  })
})

describe('parseNotificationsQuery', () => {
  it('applies the defaults', () => {
    expect(parseNotificationsQuery(new URLSearchParams())).toEqual({
      'to.userId': [],
      nature: [],
      includeRead: false,
      includeUnread: true,
      includeViewed: true,
      includeUnviewed: true,
      includeInactive: false,
      includeSources: false,
      sortBy: 'lastDeliveryDate',
      sortDirection: 'desc',
      offset: 0,
      limit: 50,
    })
  })

  it('reads every parameter', () => {
    const query = parseNotificationsQuery(
      new URLSearchParams(
        'to.userId=a&to.userId[]=b&to.userSource=S&nature=N1&nature[]=N2&type=T&topic=P&includeRead=true&includeUnread=false&includeViewed=false&includeUnviewed=false&includeInactive=true&includeSources=true&sortBy=title&sortDirection=ASC&offset=5&limit=7',
      ),
    )
    expect(query).toEqual({
      'to.userId': ['a', 'b'],
      'to.userSource': 'S',
      nature: ['N1', 'N2'],
      type: 'T',
      topic: 'P',
      includeRead: true,
      includeUnread: false,
      includeViewed: false,
      includeUnviewed: false,
      includeInactive: true,
      includeSources: true,
      sortBy: 'title',
      sortDirection: 'asc',
      offset: 5,
      limit: 7,
    })
  })

  it('throws NotificationsRequestError with the 400 body', () => {
    try {
      parseNotificationsQuery(new URLSearchParams('limit=0'))
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(NotificationsRequestError)
      expect((error as NotificationsRequestError).name).toBe('NotificationsRequestError')
      expect((error as NotificationsRequestError).status).toBe(400)
      expect((error as NotificationsRequestError).body).toEqual({
        error: 'Bad Request',
        message: '[mockyard] limit=0: out of range. Use a whole number from 1 to 1000.',
        parameter: 'limit',
        allowed: ['1 to 1000'],
      })
    }
  })
})

describe('compareText', () => {
  it('orders case-insensitively, digit runs as numbers, then by case', () => {
    expect(['n-10', 'Bravo', 'n-2', 'alpha', 'n-1', 'N-1', 'b'].sort(compareText)).toEqual(['alpha', 'b', 'Bravo', 'N-1', 'n-1', 'n-2', 'n-10'])
    expect(compareText('x', 'x')).toBe(0)
    expect(compareText('', 'a')).toBeLessThan(0)
  })
})
