/**
 * docs/behaviour.md, "Options", on the Vite plugin: its options are checked by the same function
 * as every other surface's; a misspelt `routes` serves nothing, never the bundled example mocks.
 * The plugin's hooks are called as Vite calls them (configResolved, then load of the virtual module).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Plugin } from 'vite'
import mockyard, { type MockyardViteOptions, type SerializedConfig } from 'mockyard/vite'
import { named, removeTempDirs, tempDir, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

/** Runs the plugin on a root folder; resolves with the table it serves and what it logged. */
async function served(options: MockyardViteOptions, root = tempDir()) {
  const logs = { info: [] as string[], warn: [] as string[], error: [] as string[] }
  const plugin = mockyard(options) as Plugin & {
    configResolved: (config: unknown) => void
    load: (id: string) => Promise<string | undefined>
  }
  const logger = { info: (m: string) => logs.info.push(m), warn: (m: string) => logs.warn.push(m), error: (m: string) => logs.error.push(m) }
  plugin.configResolved({ root, base: '/', logger })
  const code = (await plugin.load('\0virtual:mockyard'))!
  const config = JSON.parse(code.slice(code.indexOf('export default ') + 'export default '.length)) as SerializedConfig
  return { config, logs }
}

describe('the Vite plugin checks its options as every surface does', () => {
  it('a misspelt routes serves nothing, not the bundled example mocks, and says why', async () => {
    const { config, logs } = await served({ rotues: 'mocks/routes.json' } as MockyardViteOptions)
    expect(config.sources).toEqual([])
    expect(config.error).toBeUndefined()
    expect(logs.warn).toEqual([
      '[mockyard] options#/rotues: unknown option "rotues", ignored. Did you mean "routes"? No routes are served. The bundled example mocks are served only when the options carry no unknown name.',
    ])
    expect(config.warnings).toEqual(logs.warn)
    expect(logs.info.join('\n')).not.toContain('bundled')
  })

  it('options only a listener reads (and validate) are a warning that they have no effect in the browser', async () => {
    const mocks = writeMocks({ 'v1/users': { file: 'users.json' } }, named('users.json'))
    const { logs } = await served({ routes: mocks.routes, port: 3001, proxy: 'http://127.0.0.1:9', validate: 'openapi.yaml' })
    expect(logs.warn).toEqual([
      '[mockyard] "port", "proxy", "validate" have no effect in the browser: the service worker answers the page, with no port, no listener and no contract check. Remove them, or run the CLI (npx mockyard) for a listener.',
    ])
  })

  it('names the routes files from the root, so a build holds no path of the machine that built it', async () => {
    const root = tempDir()
    mkdirSync(join(root, 'mocks', 'data'), { recursive: true })
    writeFileSync(join(root, 'mocks', 'routes.json'), JSON.stringify({ 'v1/local': { file: 'local.json' } }))
    writeFileSync(join(root, 'mocks', 'data', 'local.json'), '{}')
    const { config } = await served({ routes: join(root, 'mocks', 'routes.json') }, root)
    expect(config.sources.map((source) => source.file)).toEqual(['mocks/routes.json'])
  })

  it('the terminal counts the routes as the page does: a key two routes files name is one route', async () => {
    const first = writeMocks({ 'v1/a': { file: 'a.json' }, 'v1/shared': { file: 'a.json' } }, named('a.json'))
    const second = writeMocks({ 'v1/b': { file: 'b.json' }, 'v1/shared': { file: 'b.json' } }, named('b.json'))
    const plugin = mockyard({ routes: [first.routes, second.routes], watch: false }) as Plugin & { configResolved: (config: unknown) => void; configureServer: (server: unknown) => Promise<void> }
    const info: string[] = []
    plugin.configResolved({ root: first.dir, base: '/', logger: { info: (m: string) => info.push(m), warn: () => {}, error: () => {} } })
    await plugin.configureServer({ middlewares: { use: () => {} } })
    expect(info.find((line) => line.includes('serving'))).toMatch(/^\[mockyard\] serving 3 routes from /)
  })

  it('with no options at all it still serves the bundled mocks', async () => {
    const { config, logs } = await served({})
    expect(config.sources.length).toBeGreaterThan(0)
    expect(logs.info.join('\n')).toContain('serving the bundled example mocks')
  })

  it('with no options it serves mocks/routes.json of the root with mocks/data, as the CLI does, and says so', async () => {
    const root = tempDir()
    mkdirSync(join(root, 'mocks', 'data'), { recursive: true })
    writeFileSync(join(root, 'mocks', 'routes.json'), JSON.stringify({ 'v1/local': { file: 'local.json' } }))
    writeFileSync(join(root, 'mocks', 'data', 'local.json'), '{"local":true}')
    const { config, logs } = await served({}, root)
    expect(config.sources).toHaveLength(1)
    expect(JSON.stringify(config.sources[0])).toContain('v1/local')
    // The data file is found: a data folder other than mocks/data would warn that local.json is missing.
    expect(config.warnings ?? []).toEqual([])
    expect(logs.info).toEqual([`[mockyard] no routes given and no mocks/config.js in ${root}: serving mocks/routes.json with the data folder mocks/data.`])
    expect(logs.warn).toEqual([])
  })

  it('an unknown option is a warning, the plugin own names included in the suggestions', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const { config, logs } = await served({ routes: mocks.routes, latancy: 0, buld: true } as MockyardViteOptions)
    expect(config.sources).toHaveLength(1)
    expect(logs.warn).toEqual([
      '[mockyard] options#/latancy: unknown option "latancy", ignored. Did you mean "latency"?',
      '[mockyard] options#/buld: unknown option "buld", ignored. Did you mean "build"?',
    ])
  })

  it('the old options (enabled, user, cache) pass without a warning', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const { config, logs } = await served({ routes: mocks.routes, enabled: true, user: null, cache: 0 } as MockyardViteOptions)
    expect(config.sources).toHaveLength(1)
    expect(logs.warn).toEqual([])
  })

  it('a wrong type of a known option is an error, as elsewhere', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const { config, logs } = await served({ routes: mocks.routes, latency: 'slow' } as never)
    expect(config.error).toContain('options#/latency: latency must be a whole number')
    expect(logs.error.join('\n')).toContain('options#/latency')
  })
})
