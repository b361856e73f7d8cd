import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url))

/**
 * Tests import the public entry points (`mockyard/node`, ...). Here they resolve to the sources;
 * the packaging test checks the built tarball.
 */
export const alias = [
  { find: /^mockyard$/, replacement: src('core/index.ts') },
  { find: /^mockyard\/notifications\/fixtures$/, replacement: src('notifications/fixtures.ts') },
  { find: /^mockyard\/(msw|node|vitest|playwright|browser|vite|notifications)$/, replacement: src('$1/index.ts') },
]

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/browser/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
