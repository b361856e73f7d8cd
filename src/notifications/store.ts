/**
 * The in-memory notifications store behind the handlers: the fixtures as given, and the changes
 * that DELETE/PUT/PATCH made, per session, until reset.
 */
import { ConfigError, toPointer, type ConfigProblem } from '../core/errors.js'
import { notificationDateTime } from './dates.js'
import { NOTIFICATION_DATE_FIELDS, NOTIFICATION_TEXT_FIELDS, type Notification } from './types.js'

/**
 * The notifications of every session. Reads of a session that changed nothing see the fixtures;
 * the first change copies them for that session (copy on write), so sessions never see each
 * other's changes. The session `''` is the one used when a request names none.
 *
 * @example
 * const store = createNotificationsStore(buildNotifications(2))
 * store.remove((n) => n.id === 'n-1', 'session-a')
 * store.list('session-a').length // 1
 * store.list().length // 2
 */
export interface NotificationsStore {
  /** The notifications as given to the factory (a frozen structured clone). */
  readonly fixtures: readonly Notification[]
  /** The notifications of a session now, in fixture order. Do not mutate them: use `update`. */
  list(session?: string): readonly Notification[]
  /**
   * Changes fields of one notification of a session; returns it, or `undefined` when no
   * notification has that id.
   */
  update(id: string, changes: Partial<Pick<Notification, 'read' | 'viewed'>>, session?: string): Notification | undefined
  /** Removes the notifications of a session that `predicate` selects; returns how many. */
  remove(predicate: (notification: Notification) => boolean, session?: string): number
  /** Back to the fixtures: one session's changes, or every session's when none is given. */
  reset(session?: string): void
}

const TEXT_FIELDS = NOTIFICATION_TEXT_FIELDS
const BOOLEAN_FIELDS = ['read', 'viewed', 'interruptIndicator'] as const

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}

/**
 * Every problem of the given notifications, with JSON pointers from `/notifications`: a field
 * missing or of the wrong type, a date that does not parse, a recipient without userId or
 * userSource, an id used twice.
 *
 * @example
 * validateNotifications([{ ...buildNotification(), activeDate: 'soon' }], 'fixtures.json')
 * // [{ file: 'fixtures.json', pointer: '/notifications/0/activeDate', message: '"soon" is not a date-time with a zone', fix: '...' }]
 */
export function validateNotifications(notifications: unknown, file: string): ConfigProblem[] {
  const problems: ConfigProblem[] = []
  const problem = (tokens: Array<string | number>, message: string, fix: string) =>
    problems.push({ file, pointer: toPointer(['notifications', ...tokens]), message, fix })
  if (!Array.isArray(notifications)) {
    problem([], 'notifications must be an array', 'Pass notifications: [buildNotification(), ...].')
    return problems
  }
  const seen = new Map<string, number>()
  notifications.forEach((item: unknown, index) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      problem([index], 'not a notification object', 'Build it with buildNotification().')
      return
    }
    const n = item as Record<string, unknown>
    for (const field of TEXT_FIELDS) {
      if (typeof n[field] !== 'string') problem([index, field], `${field} must be a string`, `Set ${field}, or build the notification with buildNotification().`)
    }
    for (const field of NOTIFICATION_DATE_FIELDS) {
      if (Number.isNaN(notificationDateTime(n[field] as string))) {
        problem([index, field], `${JSON.stringify(n[field])} is not a date-time with a zone`, 'Write it like 2018-01-26T19:31:03.000+0000 (formatNotificationDate does).')
      }
    }
    for (const field of BOOLEAN_FIELDS) {
      if (typeof n[field] !== 'boolean') problem([index, field], `${field} must be true or false`, `Set ${field} to a boolean.`)
    }
    const to = n.to as Record<string, unknown> | undefined
    if (!to || typeof to !== 'object' || typeof to.userId !== 'string' || typeof to.userSource !== 'string') {
      problem([index, 'to'], 'the recipient must be { userId, userSource } with two strings', "Set to: { userId: 'aka-user', userSource: 'AVAILITY' }.")
    }
    if (n.sources !== undefined && !Array.isArray(n.sources)) {
      problem([index, 'sources'], 'sources must be an array', 'Leave sources out, or give an array of { sourceId, sourceSystem, sourceType, createdDate }.')
    }
    if (typeof n.id === 'string') {
      const first = seen.get(n.id)
      if (first !== undefined) {
        problem([index, 'id'], `the id ${JSON.stringify(n.id)} is already used by /notifications/${first}`, 'Give every notification its own id.')
      } else {
        seen.set(n.id, index)
      }
    }
  })
  return problems
}

/**
 * Builds the store over a structured clone of `notifications`; changing the array afterwards
 * changes nothing in the store.
 *
 * @throws ConfigError naming every problem (a missing field, a date that does not parse, an id
 *   used twice), each with its JSON pointer (`/notifications/2/activeDate`).
 * @example
 * const store = createNotificationsStore(buildNotifications(3))
 * store.update('n-1', { read: true })
 * store.reset()
 * store.list()[0].read // false
 */
export function createNotificationsStore(notifications: readonly Notification[], source = 'createNotificationsStore()'): NotificationsStore {
  const problems = validateNotifications(notifications, source)
  if (problems.length > 0) throw new ConfigError(problems)
  const fixtures: readonly Notification[] = deepFreeze(structuredClone(notifications) as Notification[])
  const sessions = new Map<string, Notification[]>()

  // Copy on write, per notification: a session's list starts as the fixtures' own (frozen)
  // objects, and only a notification the session changes is cloned. A session that marks one
  // notification read costs one array of references and one copy, not a copy of every fixture.
  const writable = (session: string): Notification[] => {
    let list = sessions.get(session)
    if (!list) {
      list = [...fixtures]
      sessions.set(session, list)
    }
    return list
  }
  /** The session's own copy of a notification, made on its first change. */
  const own = (list: Notification[], index: number): Notification => {
    if (Object.isFrozen(list[index])) list[index] = structuredClone(list[index]!)
    return list[index]!
  }

  return {
    fixtures,
    list: (session = '') => sessions.get(session) ?? fixtures,
    update(id, changes, session = '') {
      if (!(sessions.get(session) ?? fixtures).some((n) => n.id === id)) return undefined
      const list = writable(session)
      const notification = own(list, list.findIndex((n) => n.id === id))
      if (changes.read !== undefined) notification.read = changes.read
      if (changes.viewed !== undefined) notification.viewed = changes.viewed
      return notification
    },
    remove(predicate, session = '') {
      if (!(sessions.get(session) ?? fixtures).some(predicate)) return 0
      const list = writable(session)
      const kept = list.filter((n) => !predicate(n))
      const removed = list.length - kept.length
      sessions.set(session, kept)
      return removed
    },
    reset(session) {
      if (session === undefined) sessions.clear()
      else sessions.delete(session)
    },
  }
}
