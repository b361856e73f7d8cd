/**
 * The real clock, whatever fake timers a test installed: mockyard's latencies and stream pacing
 * never run on a test's fake clock (docs/behaviour.md, "Building the response").
 *
 * The timers are taken when mockyard loads, so fake timers installed later (`vi.useFakeTimers()`
 * in a test) are not the ones used. Fake timers installed before it loads (Jest's
 * `fakeTimers: { enableGlobally: true }`, a Vitest setup file calling `vi.useFakeTimers()`) are
 * the ones found then: @sinonjs/fake-timers, which both use, marks each fake with its `clock`,
 * which keeps the original as `_setTimeout`; that original is used instead, at each call, so it
 * also holds after the test goes back to real timers.
 */
type Fake<T> = T & { clock?: Record<string, unknown> }

const loadedSetTimeout = globalThis.setTimeout as Fake<typeof setTimeout>
const loadedClearTimeout = globalThis.clearTimeout as Fake<typeof clearTimeout>

function original<T>(loaded: Fake<T>, name: string): T {
  const kept = loaded.clock?.[`_${name}`]
  return typeof kept === 'function' ? (kept as T) : loaded
}

export function realSetTimeout(callback: () => void, ms: number): ReturnType<typeof setTimeout> {
  return original(loadedSetTimeout, 'setTimeout')(callback, ms)
}

export function realClearTimeout(timer: ReturnType<typeof setTimeout> | undefined): void {
  original(loadedClearTimeout, 'clearTimeout')(timer)
}
