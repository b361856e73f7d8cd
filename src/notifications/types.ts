/**
 * The shapes of the notifications endpoint (docs/behaviour.md, "Notifications").
 * Types and constants only: no msw, no Node, so `mockyard/notifications/fixtures` can re-export
 * them to plain unit tests.
 */

/**
 * The recipient of a notification, and the shape of a user of the mock endpoint.
 *
 * @example
 * const user: MockUser = { userId: 'aka-user', userSource: 'AVAILITY' }
 */
export interface MockUser {
  userId: string
  userSource: string
}

/**
 * One source of a notification: listed on each notification when `includeSources=true`.
 *
 * @example
 * const source: NotificationSource = {
 *   sourceId: 'claim-42',
 *   sourceSystem: 'CLAIMS',
 *   sourceType: 'CLAIM',
 *   createdDate: '2018-01-26T19:31:03.000+0000',
 * }
 */
export interface NotificationSource {
  sourceId: string
  sourceSystem: string
  sourceType: string
  /** Same date format as the notification's dates. */
  createdDate: string
}

/**
 * A notification as the store holds it: every field of the list response, the recipient `to` and, when
 * it has any, its `sources`. Dates are written like `2018-01-26T19:31:03.000+0000`
 * (milliseconds, zone offset without a colon); see `formatNotificationDate`.
 *
 * @example
 * import { buildNotification } from 'mockyard/notifications/fixtures'
 * const notification: Notification = buildNotification({ id: 'welcome', read: true })
 */
export interface Notification {
  id: string
  createdDate: string
  updatedDate: string
  /** Category of the notification; the `nature` filter may repeat. */
  nature: string
  /** Filterable with `type`. */
  type: string
  subject: string
  title: string
  subtitle: string
  message: string
  /** Relative path the notification points to. */
  link: string
  /** Browser link target, such as `_self` or `_blank`. */
  linkTarget: string
  /** Inactive before this date. */
  activeDate: string
  /** Inactive after this date. */
  expirationDate: string
  /** The default sort field. */
  lastDeliveryDate: string
  /** Filterable with `topic`; `DELETE ...?topicId=` removes by it. */
  topic: string
  read: boolean
  viewed: boolean
  interruptIndicator: boolean
  /** Whose notification it is. Never part of a response. */
  to: MockUser
  /** Listed only with `includeSources=true` (as `[]` when absent). */
  sources?: NotificationSource[]
}

/**
 * A notification as the endpoint lists it: without the recipient `to`, and with `sources` only
 * when the request asked for them (`includeSources=true`).
 *
 * @example
 * const { notifications } = (await response.json()) as NotificationsListResponse
 * const first: ListedNotification = notifications[0]
 */
export type ListedNotification = Omit<Notification, 'to' | 'sources'> & { sources?: NotificationSource[] }

/**
 * The body of `GET /api/v1/notifications`.
 *
 * @example
 * const body = (await (await fetch('http://localhost/api/v1/notifications')).json()) as NotificationsListResponse
 * console.log(body.totalCount, body.count, body.links.self.href)
 */
export interface NotificationsListResponse {
  /** Every notification that matches the filters. */
  totalCount: number
  /** The notifications on this page. */
  count: number
  offset: number
  limit: number
  links: { self: { href: string } }
  notifications: ListedNotification[]
}

/**
 * The body of every error answer (400, 403, 404, 405): `error` is the status text, `message`
 * says what failed and what to do, `parameter` names the offending query parameter (or `body`,
 * `id`), and a 400 lists the `allowed` values.
 *
 * @example
 * const error = (await response.json()) as NotificationsErrorBody
 * expect(error).toMatchObject({ error: 'Bad Request', parameter: 'limit' })
 */
export interface NotificationsErrorBody {
  error: string
  message: string
  parameter?: string
  allowed?: string[]
}

/**
 * The date fields of a notification: sortable, compared as instants.
 *
 * @example
 * for (const field of NOTIFICATION_DATE_FIELDS) parseNotificationDate(notification[field])
 */
export const NOTIFICATION_DATE_FIELDS = ['createdDate', 'updatedDate', 'activeDate', 'expirationDate', 'lastDeliveryDate'] as const

/**
 * The text fields of a notification: sortable, compared case-insensitively with digit runs as
 * numbers (see `compareText`).
 *
 * @example
 * NOTIFICATION_TEXT_FIELDS.includes('topic') // true
 */
export const NOTIFICATION_TEXT_FIELDS = [
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
] as const

/**
 * Every value `sortBy` accepts: the date fields, then the text fields.
 *
 * @example
 * NOTIFICATION_SORT_FIELDS.includes('title') // true
 */
export const NOTIFICATION_SORT_FIELDS = [...NOTIFICATION_DATE_FIELDS, ...NOTIFICATION_TEXT_FIELDS] as const

/**
 * A date field's name.
 *
 * @example
 * const field: NotificationDateField = 'expirationDate'
 */
export type NotificationDateField = (typeof NOTIFICATION_DATE_FIELDS)[number]
/**
 * A text field's name.
 *
 * @example
 * const field: NotificationTextField = 'title'
 */
export type NotificationTextField = (typeof NOTIFICATION_TEXT_FIELDS)[number]
/**
 * A value of `sortBy`.
 *
 * @example
 * const sortBy: NotificationSortField = 'lastDeliveryDate'
 */
export type NotificationSortField = (typeof NOTIFICATION_SORT_FIELDS)[number]
/**
 * A value of `sortDirection`, lower-cased (the request may use any case).
 *
 * @example
 * const direction: SortDirection = 'asc'
 */
export type SortDirection = 'asc' | 'desc'

/**
 * The query of `GET /api/v1/notifications`, parsed, with the defaults applied. Keys are the
 * parameter names as sent on the wire (`to.userId`, `includeRead`, ...). Repeatable parameters
 * (`to.userId`, `nature`, also written `nature[]`) are arrays, empty when absent.
 *
 * @example
 * import { parseNotificationsQuery } from 'mockyard/notifications'
 * const query: NotificationsQuery = parseNotificationsQuery(new URLSearchParams('nature=ALERT&limit=10'))
 * query.limit // 10
 * query.includeRead // false
 */
export interface NotificationsQuery {
  /** Whose notifications (support users only). Empty: the current user's. */
  'to.userId': string[]
  /** Recipients' user source (support users only). */
  'to.userSource'?: string
  /** Any of these natures. Empty: every nature. */
  nature: string[]
  type?: string
  topic?: string
  /** Default false. */
  includeRead: boolean
  /** Default true. */
  includeUnread: boolean
  /** Default true. */
  includeViewed: boolean
  /** Default true. */
  includeUnviewed: boolean
  /** Default false. */
  includeInactive: boolean
  /** Default false. */
  includeSources: boolean
  /** Default `lastDeliveryDate`. */
  sortBy: NotificationSortField
  /** Default `desc`. */
  sortDirection: SortDirection
  /** Default 0. */
  offset: number
  /** Default 50; 1 to 1000. */
  limit: number
}
