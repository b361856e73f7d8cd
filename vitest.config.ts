import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url))

/**
 * Tests import the public entry points (`mockyard/node`, ...). Here they resolve to the sources;
 * the packaging test checks the built tarball.
 */
const alias = [
  { find: /^mockyard$/, replacement: src('core/index.ts') },
  { find: /^mockyard\/notifications\/fixtures$/, replacement: src('notifications/fixtures.ts') },
  { find: /^mockyard\/(msw|node|vitest|jest|node-test|playwright|browser|vite|notifications)$/, replacement: src('$1/index.ts') },
]

/** The suites that exercise msw itself run a second time against msw 2 (installed as `msw2`). */
const mswSuites = ['test/contract/**/*.test.ts', 'test/msw/**/*.test.ts', 'test/vitest/**/*.test.ts', 'test/notifications/**/*.test.ts']

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        resolve: { alias },
        test: { name: 'msw3', provide: { mswMajor: '3' }, include: ['test/**/*.test.ts'], exclude: ['test/browser/app/**', 'node_modules/**'] },
      },
      {
        resolve: { alias: [...alias, { find: /^msw(\/.*)?$/, replacement: 'msw2$1' }] },
        test: { name: 'msw2', provide: { mswMajor: '2' }, include: mswSuites },
      },
    ],
  },
})

declare module 'vitest' {
  export interface ProvidedContext {
    /** The major version of msw the project runs against. */
    mswMajor: '2' | '3'
  }
}
