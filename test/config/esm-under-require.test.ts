/**
 * docs/jest.md: the CommonJS build of mockyard/jest loads a config file with `require()`. When
 * that fails on an ES module, the fix depends on which module is one: the config itself (write it
 * as CommonJS), or a module a CommonJS config requires (mockyard/notifications is one: Jest's ES
 * module support, or an ES module config). Run on the built file (`npm run build` first), in a
 * Node whose `require()` refuses ES modules as Jest's does (`--no-experimental-require-module`),
 * with the hooks Jest would give.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { removeTempDirs, tempDir, writeTree } from '../support/routes.js'

afterAll(removeTempDirs)

const ENTRY = fileURLToPath(new URL('../../dist/jest/index.cjs', import.meta.url))

/** The message `setupMockServer(config)` of the CommonJS build fails its beforeAll with, or 'loaded'. */
function loadWithRequire(dir: string, config: string): string {
  writeTree(dir, {
    'jest-like.cjs': `const hooks = {}
for (const name of ['beforeAll', 'beforeEach', 'afterEach', 'afterAll']) globalThis[name] = (fn) => { hooks[name] ??= fn }
require(${JSON.stringify(ENTRY)}).setupMockServer(process.argv[2])
hooks.beforeAll().then(() => console.log('loaded'), (error) => console.log(error.message))
`,
  })
  const run = spawnSync(process.execPath, ['--no-experimental-require-module', '--no-warnings', join(dir, 'jest-like.cjs'), join(dir, config)], { encoding: 'utf8', timeout: 30_000 })
  return run.stdout.trim() || run.stderr
}

const OWN_FIX =
  "The config is an ES module, and require('mockyard/jest') loads it with Jest's require(), which cannot: write it as CommonJS in a .cjs file (module.exports = { ... }) and pass that path, use a config.json, or import mockyard/jest from an ES module test under Jest's ES module support."

describe('a config that require() cannot load, in the CommonJS build of mockyard/jest', () => {
  it('a CommonJS config that requires an ES module: the fix names that module and its package, not the config', () => {
    const dir = tempDir('mockyard-esm-dep-')
    writeTree(dir, {
      'package.json': '{ "type": "commonjs" }',
      'node_modules/notes-lib/package.json': '{ "name": "notes-lib", "type": "module", "main": "index.js" }',
      'node_modules/notes-lib/index.js': 'export const handlers = []\n',
      'config.cjs': "const { handlers } = require('notes-lib')\nmodule.exports = { routes: { 'v1/a': { status: 204 } }, handlers }\n",
    })
    const message = loadWithRequire(dir, 'config.cjs')
    const module = join(dir, 'node_modules/notes-lib/index.js')
    expect(message).toContain(`${join(dir, 'config.cjs')}#: the config file failed to load: require() of ES Module ${module} from ${join(dir, 'config.cjs')} not supported.`)
    expect(message).toContain(
      `The config is CommonJS, but a module it requires is an ES module: ${module} (package notes-lib). Jest's require() loads ES modules only under Jest's ES module support: run Jest with NODE_OPTIONS=--experimental-vm-modules (Jest 30 then require()s it), or write the config as an ES module (config.mjs) that imports it, loaded from an ES module test (import { setupMockServer } from 'mockyard/jest') under that same option (the way for Jest 29).`,
    )
    expect(message).not.toContain(OWN_FIX)
  })

  it('an ES module config: the fix says to write it as CommonJS (the error names the config itself)', () => {
    const dir = tempDir('mockyard-esm-own-')
    writeTree(dir, { 'config.mjs': "export default { routes: { 'v1/a': { status: 204 } } }\n", 'config.js': "export default { routes: { 'v1/a': { status: 204 } } }\n", 'package.json': '{ "type": "commonjs" }' })
    // Named by the error (an .mjs file), and not named (ES module syntax in a CommonJS .js file).
    for (const config of ['config.mjs', 'config.js']) {
      const message = loadWithRequire(dir, config)
      expect(message, config).toContain(OWN_FIX)
      expect(message, config).not.toContain('a module it requires')
    }
  })

  it('a CommonJS config that requires CommonJS loads', () => {
    const dir = tempDir('mockyard-esm-none-')
    writeTree(dir, { 'config.cjs': "module.exports = { routes: { 'v1/a': { status: 204 } }, handlers: require('./handlers.cjs') }\n", 'handlers.cjs': 'module.exports = []\n' })
    expect(loadWithRequire(dir, 'config.cjs')).toBe('loaded')
  })
})
