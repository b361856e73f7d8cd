/**
 * Imported first by `mockyard/jest`, before any module that needs them: the Fetch and encoding
 * globals mockyard runs on. Jest's `jsdom` environment has none of them, and mockyard supplies
 * none itself (docs/behaviour.md, "Test runners"): without this, the first module using one would
 * fail with a bare `ReferenceError`.
 */
const NEEDED = ['fetch', 'Request', 'Response', 'Headers', 'TextEncoder', 'TextDecoder', 'ReadableStream'] as const

const missing = NEEDED.filter((name) => typeof (globalThis as Record<string, unknown>)[name] === 'undefined')
if (missing.length > 0) {
  const error = new Error(
    `[mockyard] this test environment has no ${missing.join(', ')}, which mockyard/jest runs on (Jest's jsdom environment lacks them). Use the environment jest-fixed-jsdom, which keeps Node's (testEnvironment: 'jest-fixed-jsdom' in the Jest config, or a @jest-environment jest-fixed-jsdom docblock), or define them in a setup file (setupFiles).`,
  )
  error.stack = `${error.name}: ${error.message}`
  throw error
}

export {}
