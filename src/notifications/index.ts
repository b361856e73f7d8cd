/**
 * `mockyard/notifications`: msw request handlers for `GET /api/v1/notifications` and its
 * DELETE/PUT/PATCH extensions, over an in-memory store (docs/behaviour.md, "Notifications"). Works
 * with msw 2.13.5+ and msw 3, on every surface that takes msw handlers: `setupServer`, a config
 * file's `handlers`, the HTTP listener, the middleware and the browser worker.
 */
import { HttpHandler, type RequestHandler } from 'msw'
import { formatMessage } from '../core/errors.js'
import { handleNotificationsRequest, matchNotificationsRoute, normalizeBasePath, type NotificationsEndpointOptions } from './endpoint.js'
import { createNotificationsStore, type NotificationsStore } from './store.js'
import type { MockUser, Notification } from './types.js'

// Types, date helpers and builders: everything of `mockyard/notifications/fixtures`.
export * from './fixtures.js'
export { DEFAULT_LIMIT, MAX_LIMIT, NotificationsRequestError, parseNotificationsQuery } from './query.js'
export { createNotificationsStore, validateNotifications, type NotificationsStore } from './store.js'
export {
  MOCK_SUPPORT_HEADER,
  MOCK_USER_HEADER,
  SESSION_HEADER,
  compareText,
  handleNotificationsRequest,
  listNotifications,
  matchNotificationsRoute,
  type NotificationsEndpointOptions,
  type NotificationsRoute,
} from './endpoint.js'

/**
 * Options of `createNotificationsHandlers`.
 *
 * @example
 * const options: NotificationsHandlersOptions = { notifications: buildNotifications(3), defaultUser: 'aka-user' }
 */
export interface NotificationsHandlersOptions {
  /** The fixtures: the store starts from a structured clone of them, and every reset returns to it. */
  notifications: readonly Notification[]
  /** Known users: they give the userSource of a userId (see `NotificationsEndpointOptions.users`). */
  users?: readonly MockUser[]
  /** The current user (a userId) when a request has no `X-Mock-User` header. */
  defaultUser: string
  /** What time it is: decides which notifications are active. Default: `() => new Date()`. */
  clock?: () => Date
  /** The path in front of `/v1/notifications` and `/notifications`. Default `/api`. */
  basePath?: string
}

type HandledRoute = 'list' | 'item'

/**
 * One msw handler of the notifications endpoint: one method on the list or on the item path, any
 * origin. All the handlers of one factory call share `store`; msw's `resetHandlers()` calls
 * `reset()` on each, which brings the store back to the fixtures.
 *
 * @example
 * const handlers = createNotificationsHandlers({ notifications: buildNotifications(2), defaultUser: 'aka-user' })
 * const { store } = handlers[0] as NotificationsHandler
 * store.list().length // 2
 */
export class NotificationsHandler extends HttpHandler {
  readonly store: NotificationsStore

  constructor(method: string, route: HandledRoute, store: NotificationsStore, options: NotificationsEndpointOptions) {
    const basePath = normalizeBasePath(options.basePath)
    super(
      method,
      ({ request }) => matchNotificationsRoute(request.url, basePath)?.kind === route,
      ({ request }) => handleNotificationsRequest(request, store, options),
    )
    this.store = store
  }

  /**
   * msw calls this on `resetHandlers()` (msw 3: public; msw 2.15: protected, called the same
   * way): the store forgets every change.
   */
  override reset(): void {
    super.reset()
    this.store.reset()
  }

  /** Forgets the changes of one session (`x-mockyard-session`); mockyard's surfaces call it. */
  resetSession(session: string): void {
    this.store.reset(session)
  }
}

/**
 * msw request handlers for the notifications endpoint, over one in-memory store built from
 * `notifications`:
 *
 * - `GET {basePath}/v1/notifications` and `GET {basePath}/notifications`: the list (filters,
 *   sorting, paging; see `handleNotificationsRequest`).
 * - `DELETE ...notifications?topicId=T`, `PUT`/`PATCH ...notifications/:id`: change the store
 *   until `server.resetHandlers()` (or a surface's `reset()`).
 *
 * Headers: `X-Mock-User: <userId>` picks the current user (default `defaultUser`);
 * `X-Mock-Support: true` grants support rights (`to.userId`, `to.userSource`).
 *
 * @throws ConfigError when a notification is incomplete, has a date that does not parse, or
 *   repeats an id; TypeError for a bad `defaultUser` or `basePath`.
 * @example
 * import { setupServer } from 'msw/node'
 * import { buildNotifications, buildReadNotification, createNotificationsHandlers } from 'mockyard/notifications'
 *
 * const server = setupServer(
 *   ...createNotificationsHandlers({
 *     notifications: [...buildNotifications(3), buildReadNotification({ id: 'old' })],
 *     defaultUser: 'aka-user',
 *   }),
 * )
 * server.listen()
 * const body = await (await fetch('http://localhost/api/v1/notifications')).json()
 * body.notifications.map((n) => n.id) // ['n-1', 'n-2', 'n-3']
 */
export function createNotificationsHandlers(options: NotificationsHandlersOptions): RequestHandler[] {
  if (typeof options?.defaultUser !== 'string' || options.defaultUser.trim() === '') {
    throw new TypeError(
      formatMessage(`defaultUser ${JSON.stringify(options?.defaultUser)}: not a userId. Set defaultUser to the userId whose notifications a request without X-Mock-User lists.`),
    )
  }
  const store = createNotificationsStore(options.notifications, 'createNotificationsHandlers()')
  const endpoint: NotificationsEndpointOptions = {
    defaultUser: options.defaultUser,
    users: options.users ? structuredClone(options.users) : undefined,
    clock: options.clock,
    basePath: normalizeBasePath(options.basePath),
  }
  return [
    new NotificationsHandler('GET', 'list', store, endpoint),
    new NotificationsHandler('DELETE', 'list', store, endpoint),
    new NotificationsHandler('PUT', 'item', store, endpoint),
    new NotificationsHandler('PATCH', 'item', store, endpoint),
    // HEAD of the list answers as GET, without the body. Other methods are left to what comes
    // next (the user's routes and handlers often extend these paths: `POST .../read-all`).
    new NotificationsHandler('HEAD', 'list', store, endpoint),
  ]
}
