/**
 * The Vite plugin reloads through the same config source as the CLI (docs/behaviour.md, "Live
 * reload and the working folder"): a changed config file is read again, a broken one keeps the
 * last good table and travels to the page as `error`, and each reload reloads the page.
 * Vite's watcher is stood in for by an event emitter: the test emits what chokidar would.
 */
import { EventEmitter } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { Plugin } from 'vite'
import mockyard, { type SerializedConfig } from 'mockyard/vite'
import { named, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

interface Hooks {
  configResolved(config: unknown): void
  configureServer(server: unknown): Promise<void>
  load(id: string): Promise<string | undefined>
}

describe('the Vite plugin reloads through the config source', () => {
  it('a changed config file applies; a broken one keeps the last good routes; each reloads the page', async () => {
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, named('a.json'))
    const configFile = join(mocks.dir, 'config.json')
    writeFileSync(configFile, JSON.stringify({ routes: './routes.json', latency: 5 }))

    const plugin = mockyard({ config: configFile }) as unknown as Plugin & Hooks
    const errors: string[] = []
    plugin.configResolved({ root: mocks.dir, base: '/', logger: { info: () => {}, warn: () => {}, error: (m: string) => errors.push(m) } })
    const watcher = Object.assign(new EventEmitter(), { add: () => {} })
    const reloads: unknown[] = []
    await plugin.configureServer({ middlewares: { use: () => {} }, watcher, ws: { send: (message: unknown) => reloads.push(message) }, environments: {} })
    const table = async () => {
      const code = (await plugin.load('\0virtual:mockyard'))!
      return JSON.parse(code.slice(code.indexOf('export default ') + 'export default '.length)) as SerializedConfig
    }
    expect((await table()).latency).toBe(5)

    writeFileSync(configFile, JSON.stringify({ routes: './routes.json', latency: 7 }))
    watcher.emit('change', configFile)
    await vi.waitFor(() => expect(reloads).toHaveLength(1), { timeout: 5000 })
    expect((await table()).latency).toBe(7)

    writeFileSync(mocks.routes, '{ "v1/a": { "file": "a.json" }, }')
    watcher.emit('change', mocks.routes)
    await vi.waitFor(() => expect(reloads).toHaveLength(2), { timeout: 5000 })
    const broken = await table()
    expect(broken.error).toMatch(/^\[mockyard\] the configuration has 1 problem:\n {2}- .*routes\.json#: invalid JSON/)
    expect(Object.keys(broken.sources[0]!.routes)).toEqual(['v1/a'])
    expect(errors.some((m) => m.startsWith(broken.error!) && m.endsWith('[mockyard] keeping the last good routes.'))).toBe(true)

    writeFileSync(mocks.routes, JSON.stringify({ 'v1/a': { file: 'a.json' }, 'v1/b': { file: 'a.json' } }))
    watcher.emit('change', mocks.routes)
    await vi.waitFor(() => expect(reloads).toHaveLength(3), { timeout: 5000 })
    const fixed = await table()
    expect(fixed.error).toBeUndefined()
    expect(Object.keys(fixed.sources[0]!.routes)).toEqual(['v1/a', 'v1/b'])
  })
})
