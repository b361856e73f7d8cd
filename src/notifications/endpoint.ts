/**
 * The notifications endpoint as one function from a Fetch `Request` to a `Response`
 * (docs/behaviour.md, "Notifications"). The msw handlers wrap it; tests can call it directly.
 */
import { HttpResponse } from 'msw'
import { formatMessage } from '../core/errors.js'
import { listOf } from '../core/count.js'
import { sessionOf } from '../harness/session.js'
import { notificationDateTime } from './dates.js'
import { NotificationsRequestError, badRequest, parseNotificationsQuery } from './query.js'
import type { NotificationsStore } from './store.js'
import {
  NOTIFICATION_DATE_FIELDS,
  type ListedNotification,
  type MockUser,
  type Notification,
  type NotificationSortField,
  type NotificationsErrorBody,
  type NotificationsListResponse,
  type NotificationsQuery,
} from './types.js'

/**
 * The request header that names the current user (a userId).
 *
 * @example
 * fetch(url, { headers: { [MOCK_USER_HEADER]: 'jane' } })
 */
export const MOCK_USER_HEADER = 'x-mock-user'
/**
 * The request header that grants support rights when it is `true` (any case).
 *
 * @example
 * fetch(`${url}?to.userId=jane`, { headers: { [MOCK_SUPPORT_HEADER]: 'true' } })
 */
export const MOCK_SUPPORT_HEADER = 'x-mock-support'
/**
 * The request header of the listener's sessions (the same name as `mockyard/node`'s): each
 * session has its own store changes.
 *
 * @example
 * fetch(`${url}/n-1`, { method: 'PATCH', body: '{"read":true}', headers: { [SESSION_HEADER]: 'worker-2' } })
 */
export { SESSION_HEADER } from '../harness/session.js'

/**
 * Who the endpoint acts for, what time it is, and where it lives.
 *
 * @example
 * const options: NotificationsEndpointOptions = { defaultUser: 'aka-user', clock: () => new Date('2020-01-01T00:00:00Z') }
 */
export interface NotificationsEndpointOptions {
  /** The current user when a request has no `X-Mock-User` header (a userId). */
  defaultUser: string
  /**
   * Known users: they give the userSource of a userId. The current user's notifications are
   * those addressed to its userId and, when its userSource is known here, to that source.
   */
  users?: readonly MockUser[]
  /** What time it is: decides which notifications are active. Default: `() => new Date()`. */
  clock?: () => Date
  /** The path in front of `/v1/notifications` and `/notifications`. Default `/api`. */
  basePath?: string
}

/**
 * What a request path addresses: the list (`.../notifications`) or one notification.
 *
 * @example
 * const route: NotificationsRoute = { kind: 'item', id: 'n-1' }
 */
export type NotificationsRoute = { kind: 'list' } | { kind: 'item'; id: string }

/**
 * `/api`, `api/`, `/api/` -> `/api`; `''` and `/` -> `''`; `undefined` -> `/api`.
 *
 * @throws TypeError for a base path with an origin, a query or a fragment.
 * @example
 * normalizeBasePath('mock/') // '/mock'
 */
export function normalizeBasePath(basePath: string | undefined): string {
  const path = basePath ?? '/api'
  if (typeof path !== 'string' || /[?#]|:\/\//.test(path)) {
    throw new TypeError(
      formatMessage(`basePath ${JSON.stringify(path)}: not a path. Give the path in front of /v1/notifications, such as /api; the handlers answer any origin.`),
    )
  }
  const trimmed = path.replace(/^\/+|\/+$/g, '')
  return trimmed === '' ? '' : `/${trimmed}`
}

/**
 * Which notifications route a URL addresses, if any: `{basePath}/v1/notifications` and the
 * unversioned `{basePath}/notifications`, then an optional `/<id>`. Matching ignores case and
 * trailing slashes (as the route table does); the id keeps its case and is percent-decoded.
 *
 * @example
 * matchNotificationsRoute('http://localhost/api/v1/notifications/n-1?x=1', '/api') // { kind: 'item', id: 'n-1' }
 * matchNotificationsRoute('http://localhost/api/users', '/api') // undefined
 */
export function matchNotificationsRoute(url: string | URL, basePath: string): NotificationsRoute | undefined {
  const pathname = (typeof url === 'string' ? new URL(url) : url).pathname.replace(/\/+$/, '')
  const lower = pathname.toLowerCase()
  for (const prefix of [`${basePath}/v1/notifications`, `${basePath}/notifications`]) {
    const lowerPrefix = prefix.toLowerCase()
    if (lower === lowerPrefix) return { kind: 'list' }
    if (lower.startsWith(lowerPrefix + '/')) {
      const rest = pathname.slice(prefix.length + 1)
      if (rest.includes('/')) return undefined
      try {
        return { kind: 'item', id: decodeURIComponent(rest) }
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

function errorResponse(status: number, body: NotificationsErrorBody): Response {
  return HttpResponse.json(body, { status })
}

interface Caller {
  userId: string
  /** Known from `users`; when unknown, any source matches. */
  userSource: string | undefined
  support: boolean
  session: string
}

function callerOf(request: Request, options: NotificationsEndpointOptions): Caller {
  const header = request.headers.get(MOCK_USER_HEADER)?.trim()
  const userId = header ? header : options.defaultUser
  return {
    userId,
    userSource: options.users?.find((user) => user.userId === userId)?.userSource,
    support: request.headers.get(MOCK_SUPPORT_HEADER)?.trim().toLowerCase() === 'true',
    session: sessionOf(request.headers),
  }
}

const ownedBy = (caller: Caller) => (n: Notification) =>
  n.to.userId === caller.userId && (caller.userSource === undefined || n.to.userSource === caller.userSource)

/** Whose notifications a list request sees: its own, or (support) those `to.*` selects. */
function recipientFilter(query: NotificationsQuery, caller: Caller): (n: Notification) => boolean {
  const userIds = query['to.userId']
  const userSource = query['to.userSource']
  if (userIds.length === 0 && userSource === undefined) return ownedBy(caller)
  const ids = new Set(userIds)
  return (n) => (ids.size === 0 || ids.has(n.to.userId)) && (userSource === undefined || n.to.userSource === userSource)
}

const DATE_FIELDS: ReadonlySet<string> = new Set(NOTIFICATION_DATE_FIELDS)

function compareNatural(a: string, b: string): number {
  const chunk = /(\d+)|(\D+)/g
  const left = a.match(chunk) ?? []
  const right = b.match(chunk) ?? []
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const x = left[i]
    const y = right[i]
    if (x === y) continue
    if (/^\d/.test(x) && /^\d/.test(y)) {
      const difference = Number(x) - Number(y)
      // Equal values written differently (`01`, `1`), or too large to tell apart: as text below.
      if (difference !== 0 && Number.isFinite(difference)) return difference < 0 ? -1 : 1
    }
    return x < y ? -1 : 1
  }
  // Every chunk both have is equal: the shorter text first.
  return Math.sign(left.length - right.length)
}

/**
 * The text order of sorting and of ties: case-insensitive first, then case-sensitive (UTF-16
 * code units), with runs of digits compared as numbers (`n-2` before `n-10`). No locale: the
 * same order on every machine.
 *
 * @example
 * ['n-10', 'Bravo', 'n-2', 'alpha'].sort(compareText) // ['alpha', 'Bravo', 'n-2', 'n-10']
 */
export function compareText(a: string, b: string): number {
  return compareNatural(a.toLowerCase(), b.toLowerCase()) || compareNatural(a, b)
}

function sortKey(field: NotificationSortField): (n: Notification) => string | number {
  return DATE_FIELDS.has(field) ? (n) => notificationDateTime(n[field]) : (n) => n[field]
}

/**
 * Sorts by one field (dates as instants, text with `compareText`); the direction applies to that
 * field, and ties always break by id, ascending.
 */
function sortNotifications(notifications: Notification[], sortBy: NotificationSortField, direction: 'asc' | 'desc'): Notification[] {
  const key = sortKey(sortBy)
  const sign = direction === 'asc' ? 1 : -1
  const keyed = notifications.map((n) => ({ n, k: key(n) }))
  keyed.sort((a, b) => {
    const primary = typeof a.k === 'number' ? a.k - (b.k as number) : compareText(a.k, b.k as string)
    return primary !== 0 ? Math.sign(primary) * sign : compareText(a.n.id, b.n.id)
  })
  return keyed.map((entry) => entry.n)
}

/** A notification as listed: without `to`; with `sources` (`[]` when none) only when asked. */
function toListed(notification: Notification, includeSources: boolean): ListedNotification {
  const { to, sources, ...listed } = structuredClone(notification)
  void to
  return includeSources ? { ...listed, sources: sources ?? [] } : listed
}

/**
 * The notifications a list query selects, sorted, and the page of them. The filters combine
 * with AND: recipient, `nature` (any of), `type`, `topic`, read/unread, viewed/unviewed, active.
 * Inactive means `now` is before `activeDate` or after `expirationDate`.
 *
 * @example
 * const { totalCount, page } = listNotifications(store.list(), parseNotificationsQuery(new URLSearchParams()), () => true, new Date())
 */
export function listNotifications(
  notifications: readonly Notification[],
  query: NotificationsQuery,
  recipient: (notification: Notification) => boolean,
  now: Date,
): { totalCount: number; page: Notification[] } {
  const time = now.getTime()
  const natures = new Set(query.nature)
  const matches = notifications.filter(
    (n) =>
      recipient(n) &&
      (natures.size === 0 || natures.has(n.nature)) &&
      (query.type === undefined || n.type === query.type) &&
      (query.topic === undefined || n.topic === query.topic) &&
      (n.read ? query.includeRead : query.includeUnread) &&
      (n.viewed ? query.includeViewed : query.includeUnviewed) &&
      (query.includeInactive || (time >= notificationDateTime(n.activeDate) && time <= notificationDateTime(n.expirationDate))),
  )
  const sorted = sortNotifications(matches, query.sortBy, query.sortDirection)
  return { totalCount: sorted.length, page: sorted.slice(query.offset, query.offset + query.limit) }
}

/** `to.userId` / `to.userSource` in a query: support users only (403 otherwise). */
function requireSupport(params: URLSearchParams, caller: Caller): void {
  if (caller.support) return
  for (const name of params.keys()) {
    const parameter = name === 'to.userId[]' ? 'to.userId' : name
    if (parameter === 'to.userId' || parameter === 'to.userSource') {
      throw new NotificationsRequestError(403, {
        error: 'Forbidden',
        message: formatMessage(
          `${parameter}: only support users may list other users' notifications. Send the header X-Mock-Support: true, or leave ${parameter} out to list the current user's.`,
        ),
        parameter,
      })
    }
  }
}

function list(request: Request, url: URL, store: NotificationsStore, options: NotificationsEndpointOptions): Response {
  const caller = callerOf(request, options)
  requireSupport(url.searchParams, caller)
  const query = parseNotificationsQuery(url.searchParams)
  const now = (options.clock ?? (() => new Date()))()
  const { totalCount, page } = listNotifications(store.list(caller.session), query, recipientFilter(query, caller), now)
  const body: NotificationsListResponse = {
    totalCount,
    count: page.length,
    offset: query.offset,
    limit: query.limit,
    links: { self: { href: request.url } },
    notifications: page.map((n) => toListed(n, query.includeSources)),
  }
  return HttpResponse.json(body)
}

function removeByTopic(request: Request, url: URL, store: NotificationsStore, options: NotificationsEndpointOptions): Response {
  const caller = callerOf(request, options)
  const topics = url.searchParams.getAll('topicId')
  if (topics.length > 1) throw badRequest('topicId', undefined, `given ${topics.length} times`, ['a topic'], 'Send topicId once.')
  const topic = topics[0]
  if (!topic) {
    throw badRequest('topicId', topic, 'missing', ['a topic'], 'Send the topic whose notifications to delete: DELETE /api/v1/notifications?topicId=<topic>.')
  }
  const owned = ownedBy(caller)
  store.remove((n) => owned(n) && n.topic === topic, caller.session)
  return new HttpResponse(null, { status: 204 })
}

const UPDATE_ALLOWED = ['{"read": true|false}', '{"viewed": true|false}']

async function update(request: Request, id: string, store: NotificationsStore, options: NotificationsEndpointOptions): Promise<Response> {
  const caller = callerOf(request, options)
  const owned = ownedBy(caller)
  const current = store.list(caller.session).find((n) => n.id === id)
  if (!current || !owned(current)) {
    throw new NotificationsRequestError(404, {
      error: 'Not Found',
      message: formatMessage(
        `${request.method.toUpperCase()} notification ${JSON.stringify(id)}: the current user (${caller.userId}) has no notification with this id. Use the id of one of their notifications, or send X-Mock-User with its recipient.`,
      ),
      parameter: 'id',
    })
  }
  let body: unknown
  try {
    // From a clone, as the core does: whoever sees the request after us (a request log) can still read it.
    body = JSON.parse(await request.clone().text())
  } catch (error) {
    throw new NotificationsRequestError(
      400,
      {
        error: 'Bad Request',
        message: formatMessage(`the request body: not JSON (${(error as Error).message}). Send {"read": true} or {"viewed": true}.`),
        parameter: 'body',
        allowed: UPDATE_ALLOWED,
      },
      { cause: error },
    )
  }
  const changes = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>
  for (const field of ['read', 'viewed'] as const) {
    if (changes[field] !== undefined && typeof changes[field] !== 'boolean') {
      throw badRequest(field, JSON.stringify(changes[field]), 'not a boolean', UPDATE_ALLOWED, `Send {"${field}": true} or {"${field}": false}.`)
    }
  }
  if (typeof changes.read !== 'boolean' && typeof changes.viewed !== 'boolean') {
    throw badRequest('body', undefined, 'names neither read nor viewed', UPDATE_ALLOWED, 'Send {"read": true} or {"viewed": true}.')
  }
  const updated = store.update(id, { read: changes.read as boolean | undefined, viewed: changes.viewed as boolean | undefined }, caller.session)!
  return HttpResponse.json(toListed(updated, false))
}

const ALLOWED_METHODS = { list: ['GET', 'HEAD', 'DELETE'], item: ['PUT', 'PATCH'] } as const

/**
 * Answers one request to the notifications endpoint; the whole behaviour of docs/behaviour.md,
 * "Notifications", without msw's machinery:
 *
 * - `GET {basePath}/v1/notifications` (and `{basePath}/notifications`): the list.
 *   The current user is `X-Mock-User`, else `defaultUser`. `to.userId`/`to.userSource` need
 *   `X-Mock-Support: true` (else 403) and then select whose notifications are listed.
 *   `links.self.href` is the request URL as received.
 * - `DELETE ...notifications?topicId=T`: removes the current user's notifications of topic T;
 *   204 (also when none matched); 400 without `topicId`.
 * - `PUT`/`PATCH ...notifications/:id` with `{"read": bool}` and/or `{"viewed": bool}`: 200 with
 *   the notification as listed; 404 when the current user has no notification with that id;
 *   other fields of the body are ignored; `updatedDate` is left as it is.
 * - Other paths: 404; other methods on these paths: 405 with `Allow`; `HEAD` of the list: what
 *   `GET` answers, without the body.
 *
 * Changes go to the store's session named by `X-Mockyard-Session` (none: the shared one).
 *
 * @example
 * const store = createNotificationsStore(buildNotifications(3))
 * const response = await handleNotificationsRequest(new Request('http://localhost/api/v1/notifications?limit=2'), store, { defaultUser: 'aka-user' })
 * (await response.json()).notifications.map((n) => n.id) // ['n-1', 'n-2']
 */
export async function handleNotificationsRequest(request: Request, store: NotificationsStore, options: NotificationsEndpointOptions): Promise<Response> {
  const response = await answer(request, store, options)
  // HEAD: what GET would answer, its status and headers, without the body.
  return request.method.toUpperCase() === 'HEAD' ? new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers }) : response
}

async function answer(request: Request, store: NotificationsStore, options: NotificationsEndpointOptions): Promise<Response> {
  const url = new URL(request.url)
  const basePath = normalizeBasePath(options.basePath)
  try {
    const route = matchNotificationsRoute(url, basePath)
    if (!route) {
      throw new NotificationsRequestError(404, {
        error: 'Not Found',
        message: formatMessage(`${request.method.toUpperCase()} ${url.pathname}: not a notifications path. Use ${basePath}/v1/notifications.`),
      })
    }
    const method = request.method.toUpperCase()
    if (route.kind === 'list' && (method === 'GET' || method === 'HEAD')) return list(request, url, store, options)
    if (route.kind === 'list' && method === 'DELETE') return removeByTopic(request, url, store, options)
    if (route.kind === 'item' && (method === 'PUT' || method === 'PATCH')) return await update(request, route.id, store, options)
    const allowed = ALLOWED_METHODS[route.kind]
    const response = errorResponse(405, {
      error: 'Method Not Allowed',
      message: formatMessage(`${method} ${url.pathname}: this path answers ${listOf(allowed)}. Use one of them.`),
      allowed: [...allowed],
    })
    response.headers.set('allow', allowed.join(', '))
    return response
  } catch (error) {
    if (error instanceof NotificationsRequestError) return errorResponse(error.status, error.body)
    throw error
  }
}
