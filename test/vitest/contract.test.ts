import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { EXAMPLES_DATA, EXAMPLES_ROUTES, runContract } from '../contract/cases.js'

const mocks = setupMockServer({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA })

runContract(
  'Vitest helper (setupMockServer, in process)',
  async () => ({
    fetch: (path, init) => fetch('http://api.example.test' + path, init),
    reset: () => mocks.reset(),
    close: () => undefined,
    useRoutes: (routes) => mocks.useRoutes(routes as never),
  }),
  { describe, it, beforeAll, afterAll, beforeEach, expect },
  { overrides: true },
)
