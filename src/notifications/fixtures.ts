/**
 * `mockyard/notifications/fixtures`: deterministic notification builders, the date format of the
 * endpoint and its types. No msw import: plain unit tests and scripts that write JSON fixtures
 * can use it.
 *
 * Determinism: the same input always gives a deep-equal output. Nothing depends on today's date
 * or on randomness; dates derive from `FIXTURE_DATES` (and, in `buildNotifications`, from the
 * index), text fields derive from the id.
 */
import { formatMessage } from '../core/errors.js'
import { formatNotificationDate, notificationDateTime } from './dates.js'
import { NOTIFICATION_DATE_FIELDS, type MockUser, type Notification, type NotificationDateField, type NotificationSource } from './types.js'

export type {
  ListedNotification,
  MockUser,
  Notification,
  NotificationDateField,
  NotificationSortField,
  NotificationSource,
  NotificationTextField,
  NotificationsErrorBody,
  NotificationsListResponse,
  NotificationsQuery,
  SortDirection,
} from './types.js'
export { NOTIFICATION_DATE_FIELDS, NOTIFICATION_SORT_FIELDS, NOTIFICATION_TEXT_FIELDS } from './types.js'
export { formatNotificationDate, parseNotificationDate } from './dates.js'

// ---------------------------------------------------------------------------------------------
// Fixed values

/**
 * The dates the builders use. Built notifications are active from 2018 to the end of 2099, so
 * they are active under the real clock too; scheduled ones start in 2098, expired ones ended in
 * February 2018.
 *
 * @example
 * createNotificationsHandlers({ notifications, defaultUser: 'aka-user', clock: () => parseNotificationDate(FIXTURE_DATES.base) })
 */
export const FIXTURE_DATES = Object.freeze({
  /** `createdDate`, `updatedDate` and `lastDeliveryDate` of `buildNotification()`. */
  base: '2018-01-26T19:31:03.000+0000',
  /** `activeDate` of every built notification except scheduled ones. */
  activeDate: '2018-01-01T00:00:00.000+0000',
  /** `expirationDate` of every built notification except expired ones. */
  expirationDate: '2099-12-31T23:59:59.000+0000',
  /** `activeDate` of `buildScheduledNotification()`. */
  scheduledActiveDate: '2098-01-01T00:00:00.000+0000',
  /** `expirationDate` of `buildExpiredNotification()`. */
  expiredExpirationDate: '2018-02-25T19:31:03.000+0000',
})

/**
 * The recipient of every built notification unless told otherwise. Use its `userId` as the
 * factory's `defaultUser`.
 *
 * @example
 * createNotificationsHandlers({ notifications: buildNotifications(3), defaultUser: FIXTURE_USER.userId })
 */
export const FIXTURE_USER: Readonly<MockUser> = Object.freeze({ userId: 'aka-user', userSource: 'AVAILITY' })

/**
 * A second user, for notifications that the current user must not see.
 *
 * @example
 * const theirs = buildNotificationFor(OTHER_FIXTURE_USER, { id: 'theirs' })
 */
export const OTHER_FIXTURE_USER: Readonly<MockUser> = Object.freeze({ userId: 'other-user', userSource: 'AVAILITY' })

const BASE_TIME = notificationDateTime(FIXTURE_DATES.base)
const MINUTE = 60_000

// ---------------------------------------------------------------------------------------------
// Builders

/**
 * What a builder accepts: any field of a notification; dates as text or as a `Date` (written in
 * the endpoint's format); `to` partially (the missing half comes from `FIXTURE_USER`). A key
 * whose value is `undefined` keeps the default.
 */
export type NotificationOverrides = Partial<Omit<Notification, NotificationDateField | 'to'>> & {
  [K in NotificationDateField]?: string | Date
} & {
  to?: Partial<MockUser>
}

function defined<T extends object>(object: T | undefined): Partial<T> {
  const out: Partial<T> = {}
  if (!object) return out
  for (const key of Object.keys(object) as Array<keyof T>) {
    if (object[key] !== undefined) out[key] = object[key]
  }
  return out
}

const DATE_FIELDS: ReadonlySet<string> = new Set(NOTIFICATION_DATE_FIELDS)

/**
 * A complete, valid notification for `FIXTURE_USER`: id `n-1`, active, unread, unviewed,
 * delivered at `FIXTURE_DATES.base`. Text fields derive from the id (`title: 'Notification
 * welcome'` for id `welcome`), so two builds with the same overrides are deep-equal.
 *
 * @example
 * buildNotification() // { id: 'n-1', title: 'Notification n-1', read: false, ... }
 * buildNotification({ id: 'welcome', nature: 'ALERT', lastDeliveryDate: new Date(Date.UTC(2020, 0, 1)) })
 */
export function buildNotification(overrides?: NotificationOverrides): Notification {
  const given = defined(overrides)
  const id = given.id ?? 'n-1'
  const notification: Notification = {
    id,
    createdDate: FIXTURE_DATES.base,
    updatedDate: FIXTURE_DATES.base,
    nature: 'ALERT',
    type: 'MESSAGE',
    subject: `Subject of ${id}`,
    title: `Notification ${id}`,
    subtitle: `Subtitle of ${id}`,
    message: `Message of notification ${id}.`,
    link: `/notifications/${encodeURIComponent(id)}`,
    linkTarget: '_self',
    activeDate: FIXTURE_DATES.activeDate,
    expirationDate: FIXTURE_DATES.expirationDate,
    lastDeliveryDate: FIXTURE_DATES.base,
    topic: 'GENERAL',
    read: false,
    viewed: false,
    interruptIndicator: false,
    to: { ...FIXTURE_USER },
  }
  const target = notification as unknown as Record<string, unknown>
  for (const [key, value] of Object.entries(given)) {
    if (key === 'to') {
      notification.to = { ...notification.to, ...defined(value as Partial<MockUser>) }
    } else if (key === 'sources') {
      notification.sources = (value as NotificationSource[]).map((source) => ({ ...source }))
    } else if (DATE_FIELDS.has(key) && value instanceof Date) {
      target[key] = formatNotificationDate(value)
    } else {
      target[key] = value
    }
  }
  return notification
}

/**
 * A read notification (`read: true`; `viewed` stays false unless overridden).
 *
 * @example
 * buildReadNotification({ id: 'old-news' })
 */
export function buildReadNotification(overrides?: NotificationOverrides): Notification {
  return buildNotification({ read: true, ...defined(overrides) })
}

/**
 * A viewed notification (`viewed: true`; `read` stays false unless overridden).
 *
 * @example
 * buildViewedNotification({ id: 'seen' })
 */
export function buildViewedNotification(overrides?: NotificationOverrides): Notification {
  return buildNotification({ viewed: true, ...defined(overrides) })
}

/**
 * An inactive notification that has not started yet: `activeDate` is
 * `FIXTURE_DATES.scheduledActiveDate` (2098). Listed only with `includeInactive=true`.
 *
 * @example
 * buildScheduledNotification({ id: 'next-week' })
 */
export function buildScheduledNotification(overrides?: NotificationOverrides): Notification {
  return buildNotification({ activeDate: FIXTURE_DATES.scheduledActiveDate, ...defined(overrides) })
}

/**
 * An inactive notification that has expired: `expirationDate` is
 * `FIXTURE_DATES.expiredExpirationDate` (February 2018). Listed only with `includeInactive=true`.
 *
 * @example
 * buildExpiredNotification({ id: 'last-year' })
 */
export function buildExpiredNotification(overrides?: NotificationOverrides): Notification {
  return buildNotification({ expirationDate: FIXTURE_DATES.expiredExpirationDate, ...defined(overrides) })
}

/**
 * One notification source; its id and date derive from the overrides only.
 *
 * @example
 * buildNotificationSource({ sourceId: 'claim-42' })
 * // { sourceId: 'claim-42', sourceSystem: 'CLAIMS', sourceType: 'CLAIM', createdDate: '2018-01-26T19:31:03.000+0000' }
 */
export function buildNotificationSource(overrides?: Partial<NotificationSource>): NotificationSource {
  return { sourceId: 'source-1', sourceSystem: 'CLAIMS', sourceType: 'CLAIM', createdDate: FIXTURE_DATES.base, ...defined(overrides) }
}

/**
 * A notification with one source (`{ sourceId: '<id>-source-1', ... }`), listed with
 * `includeSources=true`. Pass `sources` to choose them.
 *
 * @example
 * buildNotificationWithSources({ id: 'claim-ready' }).sources // [{ sourceId: 'claim-ready-source-1', ... }]
 */
export function buildNotificationWithSources(overrides?: NotificationOverrides): Notification {
  const given = defined(overrides)
  const id = given.id ?? 'n-1'
  return buildNotification({ sources: [buildNotificationSource({ sourceId: `${id}-source-1` })], ...given })
}

/**
 * A notification addressed to someone else: a whole `MockUser`, or a userId (its userSource is
 * `FIXTURE_USER.userSource`).
 *
 * @example
 * buildNotificationFor(OTHER_FIXTURE_USER, { id: 'theirs' })
 * buildNotificationFor('jane', { id: 'janes' }) // to: { userId: 'jane', userSource: 'AVAILITY' }
 */
export function buildNotificationFor(user: string | MockUser, overrides?: NotificationOverrides): Notification {
  const to = typeof user === 'string' ? { userId: user } : { userId: user.userId, userSource: user.userSource }
  const given = defined(overrides)
  return buildNotification({ ...given, to: { ...to, ...defined(given.to) } })
}

/**
 * `count` notifications, deterministic by index: ids `n-1`, `n-2`, ...; `n-1` was delivered at
 * `FIXTURE_DATES.base` and each next one a minute earlier (also its `createdDate` and
 * `updatedDate`), so the default listing (`lastDeliveryDate` descending) returns them in array
 * order. `overrides` applies to each one: an object, or a function of the 0-based index.
 *
 * @throws RangeError when `count` is not a whole number of 0 or more.
 * @example
 * buildNotifications(3).map((n) => n.id) // ['n-1', 'n-2', 'n-3']
 * buildNotifications(4, (index) => ({ read: index % 2 === 1 })) // n-2 and n-4 read
 */
export function buildNotifications(
  count: number,
  overrides?: NotificationOverrides | ((index: number) => NotificationOverrides | undefined),
): Notification[] {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(formatMessage(`buildNotifications(${String(count)}): count is not a whole number of 0 or more. Pass the number of notifications to build.`))
  }
  const notifications: Notification[] = []
  for (let index = 0; index < count; index += 1) {
    const delivered = new Date(BASE_TIME - index * MINUTE)
    const extra = typeof overrides === 'function' ? overrides(index) : overrides
    notifications.push(
      buildNotification({
        id: `n-${index + 1}`,
        createdDate: delivered,
        updatedDate: delivered,
        lastDeliveryDate: delivered,
        ...defined(extra),
      }),
    )
  }
  return notifications
}
