/**
 * `mockyard/notifications/fixtures`: the date format and the deterministic builders. The entry
 * must not import msw: the mock below fails any test file that does.
 */
import { describe, expect, it, vi } from 'vitest'
import {
  FIXTURE_DATES,
  FIXTURE_USER,
  NOTIFICATION_DATE_FIELDS,
  OTHER_FIXTURE_USER,
  buildExpiredNotification,
  buildNotification,
  buildNotificationFor,
  buildNotificationSource,
  buildNotificationWithSources,
  buildNotifications,
  buildReadNotification,
  buildScheduledNotification,
  buildViewedNotification,
  formatNotificationDate,
  parseNotificationDate,
  type Notification,
} from 'mockyard/notifications/fixtures'

vi.mock('msw', () => {
  throw new Error('mockyard/notifications/fixtures imported msw')
})

const DATE_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4}$/

describe('formatNotificationDate', () => {
  it('writes UTC with milliseconds and an offset without a colon', () => {
    expect(formatNotificationDate(new Date(Date.UTC(2018, 0, 26, 19, 31, 3)))).toBe('2018-01-26T19:31:03.000+0000')
    expect(formatNotificationDate(new Date(Date.UTC(2020, 11, 31, 23, 59, 59, 7)))).toBe('2020-12-31T23:59:59.007+0000')
    expect(formatNotificationDate(new Date('2018-01-26T14:31:03.5-05:00'))).toBe('2018-01-26T19:31:03.500+0000')
  })

  it('matches the endpoint’s date format', () => {
    expect(formatNotificationDate(new Date(0))).toMatch(DATE_FORMAT)
    expect(formatNotificationDate(new Date(Date.UTC(2099, 11, 31)))).toMatch(DATE_FORMAT)
  })

  it('refuses an invalid Date', () => {
    expect(() => formatNotificationDate(new Date('nope'))).toThrow(
      new RangeError('[mockyard] formatNotificationDate(Invalid Date): not a valid Date. Pass a Date whose getTime() is a number.'),
    )
  })
})

describe('parseNotificationDate', () => {
  it('reads the endpoint’s date format and other zone spellings', () => {
    expect(parseNotificationDate('2018-01-26T19:31:03.000+0000').toISOString()).toBe('2018-01-26T19:31:03.000Z')
    expect(parseNotificationDate('2018-01-26T14:31:03.000-0500').toISOString()).toBe('2018-01-26T19:31:03.000Z')
    expect(parseNotificationDate('2018-01-26T21:31:03.000+02:00').toISOString()).toBe('2018-01-26T19:31:03.000Z')
    expect(parseNotificationDate('2018-01-26T19:31:03Z').toISOString()).toBe('2018-01-26T19:31:03.000Z')
    expect(parseNotificationDate('2018-01-26T19:31+0000').toISOString()).toBe('2018-01-26T19:31:00.000Z')
  })

  it('round-trips with formatNotificationDate', () => {
    const text = '2019-07-04T08:09:10.011+0000'
    expect(formatNotificationDate(parseNotificationDate(text))).toBe(text)
  })

  it('refuses dates without a zone, impossible days and other text', () => {
    for (const text of ['2018-01-26T19:31:03.000', '2018-01-26', '2018-02-30T00:00:00.000+0000', 'yesterday', '']) {
      expect(() => parseNotificationDate(text), text).toThrow(RangeError)
    }
    expect(() => parseNotificationDate('2018-01-26')).toThrow(
      '[mockyard] parseNotificationDate("2018-01-26"): not a date-time with a zone. Write it like 2018-01-26T19:31:03.000+0000.',
    )
  })
})

describe('buildNotification', () => {
  it('builds a complete, valid notification for FIXTURE_USER', () => {
    expect(buildNotification()).toEqual({
      id: 'n-1',
      createdDate: '2018-01-26T19:31:03.000+0000',
      updatedDate: '2018-01-26T19:31:03.000+0000',
      nature: 'ALERT',
      type: 'MESSAGE',
      subject: 'Subject of n-1',
      title: 'Notification n-1',
      subtitle: 'Subtitle of n-1',
      message: 'Message of notification n-1.',
      link: '/notifications/n-1',
      linkTarget: '_self',
      activeDate: '2018-01-01T00:00:00.000+0000',
      expirationDate: '2099-12-31T23:59:59.000+0000',
      lastDeliveryDate: '2018-01-26T19:31:03.000+0000',
      topic: 'GENERAL',
      read: false,
      viewed: false,
      interruptIndicator: false,
      to: { userId: 'aka-user', userSource: 'AVAILITY' },
    })
    expect(FIXTURE_USER).toEqual({ userId: 'aka-user', userSource: 'AVAILITY' })
  })

  it('writes every date in the endpoint’s date format', () => {
    const n = buildNotification({ activeDate: new Date(Date.UTC(2021, 1, 3, 4, 5, 6, 7)) })
    for (const field of NOTIFICATION_DATE_FIELDS) expect(n[field], field).toMatch(DATE_FORMAT)
    expect(n.activeDate).toBe('2021-02-03T04:05:06.007+0000')
  })

  it('is deterministic: the same input gives deep-equal output, every time', () => {
    const overrides = { id: 'welcome', nature: 'NEWS', lastDeliveryDate: new Date(Date.UTC(2020, 0, 1)), to: { userId: 'jane' } }
    const first = buildNotification(overrides)
    const second = buildNotification(overrides)
    expect(second).toEqual(first)
    expect(second).not.toBe(first)
    expect(buildNotification()).toEqual(buildNotification())
  })

  it('derives the text fields from the id, and overrides win', () => {
    expect(buildNotification({ id: 'welcome' })).toMatchObject({
      id: 'welcome',
      title: 'Notification welcome',
      subject: 'Subject of welcome',
      link: '/notifications/welcome',
    })
    expect(buildNotification({ id: 'a b', title: 'Hi' })).toMatchObject({ title: 'Hi', link: '/notifications/a%20b' })
  })

  it('merges a partial recipient with FIXTURE_USER', () => {
    expect(buildNotification({ to: { userId: 'jane' } }).to).toEqual({ userId: 'jane', userSource: 'AVAILITY' })
    expect(buildNotification({ to: { userSource: 'PORTAL' } }).to).toEqual({ userId: 'aka-user', userSource: 'PORTAL' })
  })

  it('keeps the default for keys set to undefined', () => {
    expect(buildNotification({ id: undefined, read: undefined })).toEqual(buildNotification())
  })

  it('shares nothing with its input or with earlier results', () => {
    const sources = [buildNotificationSource()]
    const n = buildNotification({ sources })
    sources[0].sourceId = 'changed'
    expect(n.sources).toEqual([buildNotificationSource()])
    n.to.userId = 'changed'
    expect(buildNotification().to.userId).toBe('aka-user')
    expect(FIXTURE_USER.userId).toBe('aka-user')
  })

  it('has no sources key unless given', () => {
    expect('sources' in buildNotification()).toBe(false)
  })
})

describe('one-call helpers', () => {
  const base = buildNotification()

  it('buildReadNotification sets read only', () => {
    expect(buildReadNotification()).toEqual({ ...base, read: true })
    expect(buildReadNotification({ id: 'x', read: false }).read).toBe(false)
  })

  it('buildViewedNotification sets viewed only', () => {
    expect(buildViewedNotification()).toEqual({ ...base, viewed: true })
  })

  it('buildScheduledNotification starts in 2098', () => {
    expect(buildScheduledNotification()).toEqual({ ...base, activeDate: '2098-01-01T00:00:00.000+0000' })
    expect(FIXTURE_DATES.scheduledActiveDate).toBe('2098-01-01T00:00:00.000+0000')
  })

  it('buildExpiredNotification ended in February 2018', () => {
    expect(buildExpiredNotification()).toEqual({ ...base, expirationDate: '2018-02-25T19:31:03.000+0000' })
  })

  it('buildNotificationWithSources adds one source named after the id; sources may be given', () => {
    expect(buildNotificationWithSources({ id: 'claim-ready' }).sources).toEqual([
      { sourceId: 'claim-ready-source-1', sourceSystem: 'CLAIMS', sourceType: 'CLAIM', createdDate: '2018-01-26T19:31:03.000+0000' },
    ])
    expect(buildNotificationWithSources({ sources: [] }).sources).toEqual([])
  })

  it('buildNotificationFor takes a user or a userId', () => {
    expect(buildNotificationFor(OTHER_FIXTURE_USER, { id: 'theirs' })).toEqual({
      ...buildNotification({ id: 'theirs' }),
      to: { userId: 'other-user', userSource: 'AVAILITY' },
    })
    expect(buildNotificationFor('jane').to).toEqual({ userId: 'jane', userSource: 'AVAILITY' })
    expect(buildNotificationFor({ userId: 'jane', userSource: 'PORTAL' }, { to: { userSource: 'X' } }).to).toEqual({ userId: 'jane', userSource: 'X' })
  })

  it('every helper is deterministic', () => {
    const builders: Array<() => Notification> = [
      () => buildReadNotification({ id: 'r' }),
      () => buildViewedNotification({ id: 'v' }),
      () => buildScheduledNotification({ id: 's' }),
      () => buildExpiredNotification({ id: 'e' }),
      () => buildNotificationWithSources({ id: 'w' }),
      () => buildNotificationFor('jane', { id: 'j' }),
    ]
    for (const build of builders) expect(build()).toEqual(build())
  })
})

describe('buildNotifications', () => {
  it('numbers the ids from n-1 and delivers each a minute before the previous one', () => {
    const list = buildNotifications(3)
    expect(list.map((n) => [n.id, n.lastDeliveryDate, n.createdDate, n.updatedDate])).toEqual([
      ['n-1', '2018-01-26T19:31:03.000+0000', '2018-01-26T19:31:03.000+0000', '2018-01-26T19:31:03.000+0000'],
      ['n-2', '2018-01-26T19:30:03.000+0000', '2018-01-26T19:30:03.000+0000', '2018-01-26T19:30:03.000+0000'],
      ['n-3', '2018-01-26T19:29:03.000+0000', '2018-01-26T19:29:03.000+0000', '2018-01-26T19:29:03.000+0000'],
    ])
    expect(list[1].title).toBe('Notification n-2')
  })

  it('gives distinct, strictly decreasing delivery dates, all in the endpoint’s date format', () => {
    const list = buildNotifications(1000)
    const times = list.map((n) => parseNotificationDate(n.lastDeliveryDate).getTime())
    expect(new Set(times).size).toBe(1000)
    for (let i = 1; i < times.length; i += 1) expect(times[i]).toBeLessThan(times[i - 1])
    for (const n of list) for (const field of NOTIFICATION_DATE_FIELDS) expect(n[field]).toMatch(DATE_FORMAT)
    expect(new Set(list.map((n) => n.id)).size).toBe(1000)
  })

  it('is deterministic and does not depend on count for a given index', () => {
    expect(buildNotifications(5)).toEqual(buildNotifications(5))
    expect(buildNotifications(5).slice(0, 2)).toEqual(buildNotifications(2))
    expect(buildNotifications(1)[0]).toEqual(buildNotification())
  })

  it('applies object overrides to each one', () => {
    const list = buildNotifications(2, { nature: 'NEWS', read: true })
    expect(list.map((n) => [n.id, n.nature, n.read])).toEqual([
      ['n-1', 'NEWS', true],
      ['n-2', 'NEWS', true],
    ])
  })

  it('calls function overrides with the 0-based index', () => {
    const seen: number[] = []
    const list = buildNotifications(4, (index) => {
      seen.push(index)
      return index % 2 === 1 ? { read: true, id: `odd-${index}` } : undefined
    })
    expect(seen).toEqual([0, 1, 2, 3])
    expect(list.map((n) => [n.id, n.read, n.title])).toEqual([
      ['n-1', false, 'Notification n-1'],
      ['odd-1', true, 'Notification odd-1'],
      ['n-3', false, 'Notification n-3'],
      ['odd-3', true, 'Notification odd-3'],
    ])
    const again = buildNotifications(4, (index) => (index % 2 === 1 ? { read: true, id: `odd-${index}` } : undefined))
    expect(again).toEqual(list)
  })

  it('builds none for 0 and refuses a negative or fractional count', () => {
    expect(buildNotifications(0)).toEqual([])
    expect(() => buildNotifications(-1)).toThrow(
      new RangeError('[mockyard] buildNotifications(-1): count is not a whole number of 0 or more. Pass the number of notifications to build.'),
    )
    expect(() => buildNotifications(1.5)).toThrow(RangeError)
  })
})
