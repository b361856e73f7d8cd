/**
 * The date format of the notifications endpoint (docs/behaviour.md, "Notifications": dates are written
 * like `2018-01-26T19:31:03.000+0000`).
 */
import { formatMessage } from '../core/errors.js'

const DATE_PATTERN = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/

/**
 * Writes a date the way the notifications endpoint does: UTC, milliseconds, and a zone offset
 * without a colon (`2018-01-26T19:31:03.000+0000`).
 *
 * @throws RangeError for an invalid date.
 * @example
 * formatNotificationDate(new Date(Date.UTC(2018, 0, 26, 19, 31, 3))) // '2018-01-26T19:31:03.000+0000'
 */
export function formatNotificationDate(date: Date): string {
  const time = date instanceof Date ? date.getTime() : Number.NaN
  if (Number.isNaN(time)) {
    throw new RangeError(formatMessage(`formatNotificationDate(${String(date)}): not a valid Date. Pass a Date whose getTime() is a number.`))
  }
  return date.toISOString().replace(/Z$/, '+0000')
}

/**
 * The instant of a notification date, in milliseconds; `NaN` when the text is not an ISO 8601
 * date-time with a zone (`2018-01-26T19:31:03.000+0000`, `...-05:00`, `...Z`; seconds and the
 * fraction may be left out).
 *
 * @example
 * notificationDateTime('1970-01-01T01:00:00.000+0100') // 0
 * notificationDateTime('2018-01-26') // NaN
 */
export function notificationDateTime(text: string): number {
  if (typeof text !== 'string') return Number.NaN
  const match = DATE_PATTERN.exec(text)
  if (!match) return Number.NaN
  const [, day, minutes, seconds = '00', fraction = '', zone] = match
  const millis = (fraction + '000').slice(0, 3)
  const offset = zone === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`
  const time = Date.parse(`${day}T${minutes}:${seconds}.${millis}${offset}`)
  if (Number.isNaN(time)) return Number.NaN
  // Date.parse may roll an impossible day over (2018-02-30 -> March 2); refuse it.
  const midnight = Date.parse(`${day}T00:00:00.000Z`)
  if (Number.isNaN(midnight) || new Date(midnight).toISOString().slice(0, 10) !== day) return Number.NaN
  return time
}

/**
 * Reads a notification date (`2018-01-26T19:31:03.000+0000`; a colon in the offset and `Z` are
 * accepted too).
 *
 * @throws RangeError when the text is not such a date.
 * @example
 * parseNotificationDate('2018-01-26T14:31:03.000-0500').toISOString() // '2018-01-26T19:31:03.000Z'
 */
export function parseNotificationDate(text: string): Date {
  const time = notificationDateTime(text)
  if (Number.isNaN(time)) {
    throw new RangeError(
      formatMessage(`parseNotificationDate(${JSON.stringify(text)}): not a date-time with a zone. Write it like 2018-01-26T19:31:03.000+0000.`),
    )
  }
  return new Date(time)
}
