/**
 * How a test that made requests nothing answered fails, on every runner and in the browser: once,
 * with the explanations the test did not already fail with. Isomorphic.
 */
import { formatMessage } from '../core/errors.js'

/** The messages of the errors a test failed with, and of their causes. */
function shownMessages(errors: ReadonlyArray<unknown> | undefined): string[] {
  const texts: string[] = []
  const seen = new Set<unknown>()
  const visit = (error: unknown) => {
    if (Array.isArray(error)) return error.forEach(visit) // Jest keeps [error, asyncError] pairs
    if (typeof error !== 'object' || error === null || seen.has(error)) return
    seen.add(error)
    const { message, cause } = error as { message?: unknown; cause?: unknown }
    if (typeof message === 'string') texts.push(message)
    visit(cause)
  }
  for (const error of errors ?? []) visit(error)
  return texts
}

/**
 * A client that wraps the request's error and copies its message (axios) would have the runner
 * print the explanation twice, as the error and as its `Caused by`: the cause is dropped from the
 * test's reported errors where its explanation is in the message already, and so is the
 * `Caused by:` part axios appends to its error's `stack` (which Jest prints as it is).
 */
function dropRepeatedCauses(errors: unknown[] | undefined, explanations: readonly string[]): void {
  if (explanations.length === 0) return
  for (const error of (errors ?? []).flat()) {
    let current = error as { message?: unknown; cause?: unknown; stack?: unknown } | undefined
    for (let depth = 0; current && typeof current === 'object' && depth < 10; depth++) {
      const cause = current.cause as { message?: unknown; cause?: unknown } | undefined
      const message = current.message
      if (typeof message === 'string' && typeof current.stack === 'string') {
        const marker = current.stack.indexOf('\nCaused by: ')
        const inlined = marker === -1 ? '' : current.stack.slice(marker)
        if (explanations.some((text) => message.includes(text) && inlined.includes(text))) current.stack = current.stack.slice(0, marker)
      }
      if (cause && typeof cause === 'object' && typeof message === 'string' && typeof cause.message === 'string') {
        const repeated = explanations.some((text) => message.includes(text) && (cause.message as string).includes(text))
        if (repeated) {
          current.cause = cause.cause
          continue
        }
      }
      current = cause
    }
  }
}

/** The violations of the `validate` document a test's requests made, and the document's name. */
export interface TestViolations {
  document: string
  messages: readonly string[]
}

/** What to do about requests nothing answered, under setupMockServer. */
export const UNMATCHED_HINT = "Add a route or a handler (mocks.use()), or set onUnhandledRequest to 'warn' or 'bypass'."

/** A violation message about the answer (formatViolation's `METHOD path status: response …`). */
const RESPONSE_VIOLATION = /^\S+ \S+ -?\d+: response /

/**
 * The error a test fails with after it ended, for the requests it made that nothing answered and
 * the exchanges that break the `validate` document (docs/behaviour.md, "Traffic checked against
 * a contract": they fail the test as an unmatched request does).
 */
function unmatchedError(messages: readonly string[], violations: TestViolations | undefined, hint: string): Error {
  const parts: string[] = []
  if (messages.length > 0) {
    parts.push(`${messages.length === 1 ? 'a request' : `${messages.length} requests`} had no mock in this test:\n${messages.join('\n')}\n${hint}`)
  }
  if (violations && violations.messages.length > 0) {
    const { document, messages: list } = violations
    // What to fix follows from where the violations are (formatViolation: `GET /x 200: request…` or `…: response …`).
    const answers = list.filter((message) => RESPONSE_VIOLATION.test(message)).length
    const fix = answers === 0 ? "the app's request" : answers === list.length ? "the mock's data file" : "the mock's data file or the app's request"
    const what = list.length > 1 ? `${list.length} violations of` : answers === 0 ? 'a request breaks' : 'an answer breaks'
    parts.push(`${what} ${document} in this test:\n${list.join('\n')}\nFix ${fix}, or the document if it is wrong.`)
  }
  const error = new Error(formatMessage(parts.join('\n')))
  // The failure is the explanation; where in mockyard it was thrown is no help.
  error.stack = `${error.name}: ${error.message}`
  return error
}

/**
 * The error to fail the test with after it ended, for the explanations of its unanswered requests
 * that are not already in `errors` (what the test failed with); `undefined` when there are none.
 * Also removes, from `errors`, a client's repetition of an explanation (a cause, an inlined stack).
 *
 * @example
 * const failure = unmatchedFailure(interception.takeUnmatched(), context.task.result?.errors)
 * if (failure) throw failure
 *
 * `hint` is the line after the explanations: what to do, in the words of the surface.
 */
export function unmatchedFailure(explanations: readonly string[], errors: unknown[] | undefined, violations?: TestViolations, hint = UNMATCHED_HINT): Error | undefined {
  dropRepeatedCauses(errors, explanations)
  const shown = shownMessages(errors)
  const messages = explanations.filter((message) => !shown.some((text) => text.includes(message)))
  return messages.length > 0 || (violations !== undefined && violations.messages.length > 0) ? unmatchedError(messages, violations, hint) : undefined
}
