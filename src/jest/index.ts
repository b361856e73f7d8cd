/// <reference types="node" preserve="true" />
/**
 * `mockyard/jest`: in-process mocks for Jest 29 and 30, from `require()` (the CommonJS build,
 * `dist/jest/index.cjs`, bundles what it needs) and from `import`. No port: `fetch`, Node's
 * `http`/`https` and a global `XMLHttpRequest` (jsdom) are intercepted for requests to any host.
 */
// First: the globals everything below needs, checked with a clear error.
import './environment-check.js'
import { formatMessage } from '../core/errors.js'
import { setupWithRunner, type MockServerHandle, type SetupOptions } from '../runners/setup.js'

export type { MockServerHandle, SetupOptions }

type Hook = (fn: () => unknown, timeout?: number) => void

/** Jest's globals, where Jest puts them (its default `injectGlobals: true`). */
function jestHook(name: 'beforeAll' | 'beforeEach' | 'afterEach' | 'afterAll'): Hook {
  const hook = (globalThis as Record<string, unknown>)[name]
  if (typeof hook !== 'function') {
    throw new Error(
      formatMessage(`setupMockServer() from mockyard/jest registers Jest's hooks, and there is no global ${name}: call it in a file Jest runs (with injectGlobals left on), or use mockyard/vitest or mockyard/node-test for the other runners.`),
    )
  }
  return hook as Hook
}

/** A test or a describe block in jest-circus's state (the fields read here, in Jest 29 and 30 alike). */
interface CircusNode {
  type?: 'test' | 'describeBlock'
  concurrent?: boolean
  mode?: string
  status?: string | null
  errors?: unknown[]
  children?: CircusNode[]
  name?: string
  parent?: CircusNode
}

/** jest-circus's state, which Jest 29 and 30 keep on the global object under a symbol; undefined when not found. */
function circusState(): { currentlyRunningTest?: CircusNode | null; currentDescribeBlock?: CircusNode } | undefined {
  const symbol = Object.getOwnPropertySymbols(globalThis).find((s) => s.description === 'JEST_STATE_SYMBOL')
  return symbol ? (globalThis as Record<symbol, ReturnType<typeof circusState>>)[symbol] : undefined
}

/**
 * The errors of the test that just ran, read so an explanation the test already failed with is
 * not repeated. Nothing when the state is not found: the explanation may then show twice, never not.
 */
function currentTestErrors(): unknown[] | undefined {
  return circusState()?.currentlyRunningTest?.errors
}

/**
 * The name of the `test.concurrent` test whose code is running (asked in a request's own async
 * context), from the state Jest gives `expect`: Jest 30's `currentTestIdentity`, or Jest 29's
 * `currentConcurrentTestName` (set only inside concurrent tests); undefined in any other test.
 */
function concurrentTestName(): string | undefined {
  const state = (globalThis as { expect?: { getState?: () => Record<string, unknown> } }).expect?.getState?.()
  const identity = state?.currentTestIdentity as (() => CircusNode | undefined) | undefined
  if (typeof identity === 'function') {
    const test = identity()
    return test?.concurrent === true ? testId(test) : undefined
  }
  const name = typeof state?.currentConcurrentTestName === 'function' ? (state.currentConcurrentTestName as () => unknown)() : undefined
  return typeof name === 'string' ? name : undefined
}

/** A test's full name as Jest prints it: its describe blocks' names, then its own. */
function testId(test: CircusNode): string {
  const names: string[] = []
  for (let node: CircusNode | undefined = test; node !== undefined && node.name !== 'ROOT_DESCRIBE_BLOCK'; node = node.parent) names.unshift(node.name ?? '')
  return names.join(' ')
}

/** The `test.concurrent` tests of a describe block and the blocks in it (skipped and todo ones aside). */
function concurrentTests(block: CircusNode | undefined): CircusNode[] {
  const found: CircusNode[] = []
  const walk = (node: CircusNode): void => {
    if (node.type === 'test') {
      if (node.concurrent === true && node.mode !== 'skip' && node.mode !== 'todo') found.push(node)
    } else if (node.mode !== 'skip') for (const child of node.children ?? []) walk(child)
  }
  if (block) walk(block)
  return found
}

/**
 * Registers Jest hooks (`beforeAll`, `afterEach`, `afterAll`) in the file, or in the `describe`
 * it is called in, that serve the given config in process: the same options, handle and rules as
 * `setupMockServer` of `mockyard/vitest` (docs/behaviour.md, "Test runners"). A request nothing
 * answers fails the test that made it, with the explanation, once.
 *
 * @example
 * const { setupMockServer } = require('mockyard/jest')
 *
 * const mocks = setupMockServer({ routes: 'mocks/routes.json' })
 *
 * test('lists users', async () => {
 *   expect((await fetch('http://api.test/v1/users')).status).toBe(200)
 *   mocks.expectCalled('GET v1/users', 1)
 * })
 */
export function setupMockServer(options: SetupOptions | string = {}): MockServerHandle {
  const [beforeAll, beforeEach, afterEach, afterAll] = [jestHook('beforeAll'), jestHook('beforeEach'), jestHook('afterEach'), jestHook('afterAll')]
  // The block setupMockServer() is called in: its test.concurrent tests get none of its hooks.
  const block = circusState()?.currentDescribeBlock
  // Its tests are all known once they run (asked first before all): looked up once.
  let concurrent: CircusNode[] | undefined
  return setupWithRunner<undefined>(options, {
    name: 'Jest',
    beforeAll: (fn) => beforeAll(fn),
    // Jest runs afterEach hooks in the order declared: the reset waits for the next test.
    beforeEach: (fn) => beforeEach(() => fn()),
    // No parameter: Jest would take one for a `done` callback.
    afterEach: (fn) => afterEach(() => fn(undefined)),
    afterAll: (fn) => afterAll(fn),
    testErrors: currentTestErrors,
    hooklessOwner: concurrentTestName,
    hookless: () => {
      concurrent ??= concurrentTests(block)
      return { total: concurrent.length, ended: concurrent.filter((test) => test.status === 'done').length }
    },
  })
}
