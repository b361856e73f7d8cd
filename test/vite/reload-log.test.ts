/**
 * The Vite plugin's log line after a change says what changed (docs/behaviour.md, "Live reload
 * and the working folder"): a data file is named as one, never reported as "routes reloaded".
 * Vite's watcher is stood in for by an event emitter, as in vite-reload.test.ts: the test emits
 * what chokidar would.
 */
import { EventEmitter } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { Plugin } from 'vite'
import mockyard from 'mockyard/vite'
import { named, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

interface Hooks {
  configResolved(config: unknown): void
  configureServer(server: unknown): Promise<void>
}

describe('the Vite plugin says what changed', () => {
  it('a data file: "data file ... changed"; a routes file: "routes reloaded"', async () => {
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, named('a.json'))
    const plugin = mockyard({ routes: mocks.routes, data: mocks.data }) as unknown as Plugin & Hooks
    const info: string[] = []
    plugin.configResolved({ root: mocks.dir, base: '/', logger: { info: (m: string) => info.push(m), warn: () => {}, error: () => {} } })
    const watcher = Object.assign(new EventEmitter(), { add: () => {} })
    const reloads: unknown[] = []
    await plugin.configureServer({ middlewares: { use: () => {} }, watcher, ws: { send: (message: unknown) => reloads.push(message) }, environments: {} })
    // The first load follows the files once it is done.
    await vi.waitFor(() => expect(info.some((m) => m.includes('serving 1 route from'))).toBe(true), { timeout: 5000 })

    info.length = 0
    const data = join(mocks.data, 'a.json')
    writeFileSync(data, '{"edited":true}')
    watcher.emit('change', data)
    await vi.waitFor(() => expect(reloads).toHaveLength(1), { timeout: 5000 })
    expect(info.join('\n')).not.toContain('routes reloaded')
    expect(info).toContain('[mockyard] data file data/a.json changed: reloading the page.')
    expect(info.some((m) => m.startsWith('[mockyard] data file ') && m.endsWith('a.json changed, served fresh from now on'))).toBe(true)

    info.length = 0
    writeFileSync(mocks.routes, JSON.stringify({ 'v1/a': { file: 'a.json' }, 'v1/b': { file: 'a.json' } }))
    watcher.emit('change', mocks.routes)
    await vi.waitFor(() => expect(reloads).toHaveLength(2), { timeout: 5000 })
    expect(info.some((m) => m.startsWith('[mockyard] routes reloaded from '))).toBe(true)
    expect(info).toContain('[mockyard] routes file routes.json changed: reloading the page.')
  })
})
