/**
 * Reading the query of `GET /api/v1/notifications` (docs/behaviour.md, "Notifications").
 */
import { formatMessage } from '../core/errors.js'
import { NOTIFICATION_SORT_FIELDS, type NotificationSortField, type NotificationsErrorBody, type NotificationsQuery } from './types.js'

/**
 * The largest `limit` a request may ask for.
 *
 * @example
 * fetch(`${url}?limit=${MAX_LIMIT}`)
 */
export const MAX_LIMIT = 1000
/**
 * The `limit` of a request that sends none.
 *
 * @example
 * parseNotificationsQuery(new URLSearchParams()).limit === DEFAULT_LIMIT // true
 */
export const DEFAULT_LIMIT = 50

/**
 * A request the endpoint refuses: its status (400, 403, 404, 405) and the JSON body it answers
 * with. `parseNotificationsQuery` throws it for bad input.
 *
 * @example
 * try { parseNotificationsQuery(new URLSearchParams('limit=0')) } catch (error) {
 *   if (error instanceof NotificationsRequestError) console.log(error.status, error.body.parameter) // 400 'limit'
 * }
 */
export class NotificationsRequestError extends Error {
  override name = 'NotificationsRequestError'
  readonly status: number
  readonly body: NotificationsErrorBody

  constructor(status: number, body: NotificationsErrorBody, options?: { cause?: unknown }) {
    super(body.message, options)
    this.status = status
    this.body = body
  }
}

/**
 * A `400 Bad Request` naming the parameter, what is wrong with it, and the allowed values.
 *
 * @example
 * throw badRequest('limit', '0', 'out of range', ['1 to 1000'], 'Use a whole number from 1 to 1000.')
 */
export function badRequest(parameter: string, value: string | undefined, why: string, allowed: string[], fix: string): NotificationsRequestError {
  const what = value === undefined ? parameter : `${parameter}=${value}`
  return new NotificationsRequestError(400, {
    error: 'Bad Request',
    message: formatMessage(`${what}: ${why}. ${fix}`),
    parameter,
    allowed,
  })
}

const BOOLEAN_ALLOWED = ['true', 'false']
const SORT_DIRECTIONS = ['asc', 'desc']

/** The values of a parameter that may repeat, with `name[]` accepted as the same parameter. */
function repeated(params: URLSearchParams, name: string): string[] {
  return [...params.getAll(name), ...params.getAll(`${name}[]`)].filter((value) => value !== '')
}

/** The value of a parameter that may be given once; an empty value counts as absent. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name)
  if (values.length > 1) {
    throw badRequest(name, undefined, `given ${values.length} times`, ['a single value'], `Send ${name} once.`)
  }
  return values[0] === '' ? undefined : values[0]
}

function flag(params: URLSearchParams, name: string, fallback: boolean): boolean {
  const values = params.getAll(name)
  if (values.length === 0) return fallback
  if (values.length > 1) throw badRequest(name, undefined, `given ${values.length} times`, BOOLEAN_ALLOWED, `Send ${name} once, as true or false.`)
  const value = values[0].toLowerCase()
  if (value === 'true') return true
  if (value === 'false') return false
  throw badRequest(name, values[0], 'not a boolean', BOOLEAN_ALLOWED, 'Use true or false.')
}

function wholeNumber(params: URLSearchParams, name: string, fallback: number, min: number, max: number, allowed: string): number {
  const value = single(params, name)
  const fix = max === Infinity ? `Use a whole number of ${min} or more.` : `Use a whole number from ${min} to ${max}.`
  // An empty value is no number: refused as an empty boolean is, not read as the default.
  if (value === undefined && params.has(name)) throw badRequest(name, '', 'not a whole number', [allowed], fix)
  if (value === undefined) return fallback
  if (!/^\d+$/.test(value)) throw badRequest(name, value, 'not a whole number', [allowed], fix)
  const number = Number(value)
  if (number < min || number > max) throw badRequest(name, value, 'out of range', [allowed], fix)
  return number
}

/**
 * Parses the query of a list request and applies the defaults. Rules (docs/behaviour.md,
 * "Notifications"):
 *
 * - `to.userId` and `nature` may repeat, and may be written `to.userId[]` / `nature[]`; every
 *   other parameter may be given once (twice: 400). An empty value counts as absent, except for
 *   the booleans, `offset` and `limit` (400).
 * - Booleans are `true` or `false`, in any case. Defaults: `includeRead` false, `includeUnread`
 *   true, `includeViewed` true, `includeUnviewed` true, `includeInactive` false,
 *   `includeSources` false.
 * - `sortBy`: one of `NOTIFICATION_SORT_FIELDS` exactly (default `lastDeliveryDate`);
 *   `sortDirection`: `asc` or `desc` in any case (default `desc`).
 * - `offset`: a whole number of 0 or more (default 0); `limit`: 1 to 1000 (default 50).
 * - Unknown parameters (cache busters) are ignored.
 *
 * Parameters are checked in a fixed order (`to.userSource`, `to.userId`,
 * `nature`, `type`, `topic`, the booleans, `sortBy`, `sortDirection`), then `offset` and
 * `limit`; the first bad one is reported.
 *
 * @throws NotificationsRequestError (400) naming the parameter and the allowed values.
 * @example
 * parseNotificationsQuery(new URLSearchParams('nature[]=ALERT&nature[]=NEWS&sortDirection=ASC'))
 * // { nature: ['ALERT', 'NEWS'], sortDirection: 'asc', sortBy: 'lastDeliveryDate', limit: 50, ... }
 */
export function parseNotificationsQuery(params: URLSearchParams): NotificationsQuery {
  const userSource = single(params, 'to.userSource')
  const userIds = repeated(params, 'to.userId')
  const nature = repeated(params, 'nature')
  const type = single(params, 'type')
  const topic = single(params, 'topic')
  const query: NotificationsQuery = {
    'to.userId': userIds,
    ...(userSource !== undefined ? { 'to.userSource': userSource } : {}),
    nature,
    ...(type !== undefined ? { type } : {}),
    ...(topic !== undefined ? { topic } : {}),
    includeRead: flag(params, 'includeRead', false),
    includeUnread: flag(params, 'includeUnread', true),
    includeViewed: flag(params, 'includeViewed', true),
    includeUnviewed: flag(params, 'includeUnviewed', true),
    includeInactive: flag(params, 'includeInactive', false),
    includeSources: flag(params, 'includeSources', false),
    sortBy: 'lastDeliveryDate',
    sortDirection: 'desc',
    offset: 0,
    limit: DEFAULT_LIMIT,
  }
  const sortBy = single(params, 'sortBy')
  if (sortBy !== undefined) {
    if (!(NOTIFICATION_SORT_FIELDS as readonly string[]).includes(sortBy)) {
      throw badRequest('sortBy', sortBy, 'not a sortable field', [...NOTIFICATION_SORT_FIELDS], `Use one of ${NOTIFICATION_SORT_FIELDS.join(', ')}.`)
    }
    query.sortBy = sortBy as NotificationSortField
  }
  const sortDirection = single(params, 'sortDirection')
  if (sortDirection !== undefined) {
    const direction = sortDirection.toLowerCase()
    if (direction !== 'asc' && direction !== 'desc') {
      throw badRequest('sortDirection', sortDirection, 'not a sort direction', SORT_DIRECTIONS, 'Use asc or desc.')
    }
    query.sortDirection = direction
  }
  query.offset = wholeNumber(params, 'offset', 0, 0, Infinity, '0 or more')
  query.limit = wholeNumber(params, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT, `1 to ${MAX_LIMIT}`)
  return query
}
