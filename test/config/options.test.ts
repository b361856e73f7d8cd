/**
 * docs/behaviour.md, "Options": an unknown option is a warning naming it (with the closest known
 * name), the options of configs written for @availity/mock-server and @availity/workflow are
 * accepted silently, wrong types stay errors, a misspelt `routes` never falls back to the bundled
 * mocks; plugins resolve as `import()` would; a missing data folder is one warning; an empty
 * `.json` file is an empty body; MockServer logs its listening line; `GET /` is logged.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { networkInterfaces } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { setupServer } from 'msw/node'
import { ConfigError, createHandlers, createMiddleware, MockServer, startMockServer, validateOptions, type MockyardOptions } from 'mockyard/node'
import { captureLogs, named, removeTempDirs, tempDir, writeMocks, writeTree } from '../support/routes.js'

afterAll(removeTempDirs)

const hasIpv6Loopback = () => Object.values(networkInterfaces()).some((list) => list?.some((a) => a.family === 'IPv6' && a.address === '::1'))

const MOCK_DATA = dirname(createRequire(import.meta.url).resolve('@availity/mock-data/package.json'))
const stops: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop()
})

/** Starts MockServer on loopback with a capturing logger. */
async function startServer(options: MockyardOptions | string, logs = captureLogs()) {
  const server = new MockServer(options)
  stops.push(() => server.stop())
  const { url } = await server.start(typeof options === 'string' ? { logProvider: logs.logProvider, host: '127.0.0.1' } : { host: '127.0.0.1' })
  return { server, url, logs }
}

describe('unknown options', () => {
  it('are a warning with the closest known name, and the server still starts (MockServer)', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const logs = captureLogs()
    const { url } = await startServer({ routes: mocks.routes, latancy: 0, logProvider: logs.logProvider } as MockyardOptions)
    expect((await fetch(`${url}/v1/x`)).status).toBe(200)
    expect(logs.warn).toEqual(['[mockyard] options#/latancy: unknown option "latancy", ignored. Did you mean "latency"?'])
  })

  it('with no close name, list the known ones', () => {
    const { errors, warnings } = validateOptions({ bogus: 1 }, 'options')
    expect(errors).toEqual([])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toBe('unknown option "bogus", ignored')
    expect(warnings[0]!.fix).toMatch(/^Remove it, or use one of latency, limit, host, port, data, routes/)
  })

  it('are checked the same way by startMockServer, createMiddleware and createHandlers', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const started = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, rotues: 'x', logProvider: started.logProvider } as MockyardOptions)
    stops.push(() => server.stop())
    expect(started.warn).toEqual(['[mockyard] options#/rotues: unknown option "rotues", ignored. Did you mean "routes"?'])

    const middlewareLogs = captureLogs()
    const middleware = await createMiddleware({ routes: mocks.routes, watch: false, Plugins: [], logProvider: middlewareLogs.logProvider } as MockyardOptions)
    stops.push(() => middleware.close())
    expect(middlewareLogs.warn).toEqual(['[mockyard] options#/Plugins: unknown option "Plugins", ignored. Did you mean "plugins"?'])

    const handlerLogs = captureLogs()
    const handlers = await createHandlers({ routes: mocks.routes, onUnhandledRequests: 'bypass', logProvider: handlerLogs.logProvider } as MockyardOptions)
    expect(handlerLogs.warn).toEqual(['[mockyard] options#/onUnhandledRequests: unknown option "onUnhandledRequests", ignored. Did you mean "onUnhandledRequest"?'])
    const msw = setupServer(...handlers)
    msw.listen()
    stops.push(async () => msw.close())
    expect(await (await fetch('http://api.test/v1/x')).json()).toEqual({ file: 'a.json' })
  })

  it('reach the terminal on the surfaces that log only errors by default', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const written: string[] = []
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk))
      return true
    })
    try {
      const server = await startMockServer({ routes: mocks.routes, latancy: 0 } as MockyardOptions)
      stops.push(() => server.stop())
      await createHandlers({ routes: mocks.routes, prot: 1 } as MockyardOptions)
      // As far from "host" as from "routes": the name it begins like wins.
      await createHandlers({ routes: mocks.routes, rout: 1 } as MockyardOptions)
    } finally {
      spy.mockRestore()
    }
    const text = written.join('')
    expect(text).toContain('unknown option "latancy", ignored. Did you mean "latency"?')
    expect(text).toContain('unknown option "prot", ignored. Did you mean "port"?')
    expect(text).toContain('unknown option "rout", ignored. Did you mean "routes"?')
  })

  it('in a config file name the file', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const config = join(mocks.dir, 'config.json')
    writeFileSync(config, JSON.stringify({ routes: './routes.json', latancy: 0, host: '127.0.0.1' }))
    const { logs, url } = await startServer(config)
    expect(logs.warn).toEqual([`[mockyard] ${config}#/latancy: unknown option "latancy", ignored. Did you mean "latency"?`])
    expect((await fetch(`${url}/v1/x`)).status).toBe(200)
  })

  it('inside requestLog and admin are warnings too', () => {
    const { errors, warnings } = validateOptions({ requestLog: { limt: 5 }, admin: { allowRemote: true } }, 'options')
    expect(errors).toEqual([])
    expect(warnings.map((w) => `${w.pointer} ${w.fix}`)).toEqual(['/requestLog/limt Did you mean "requestLog.limit"?'])
  })

  it('wrong types of known options stay errors, unknown ones beside them stay warnings', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const error = await startMockServer({ routes: mocks.routes, latency: 'slow', latancy: 0 } as never).then(
      async (server) => {
        await server.stop()
        return undefined
      },
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems.map((p) => p.pointer)).toEqual(['/latency'])
  })

  it('are rejected by the TypeScript types', () => {
    // @ts-expect-error `latancy` is not an option (the check at run time only warns).
    const options: MockyardOptions = { latancy: 0 }
    expect(validateOptions(options, 'options').warnings).toHaveLength(1)
  })
})

describe('options that old configs carry', () => {
  it('@availity/mock-server: user and cache are accepted without a warning', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const logs = captureLogs()
    const { url, server } = await startServer({ latency: 0, user: null, cache: 0, limit: '50mb', port: 0, data: mocks.data, routes: mocks.routes, logProvider: logs.logProvider } as MockyardOptions)
    expect((await fetch(`${url}/v1/x`)).status).toBe(200)
    expect(logs.warn).toEqual([])
    expect(server.config().options).not.toHaveProperty('user')
  })

  it("@availity/workflow's ekko block, with @availity/mock-data as a plugin: no warning, and its routes are served", async () => {
    const mocks = writeMocks({ 'v1/mine': { file: 'a.json' } }, named('a.json'))
    // The plugin resolves from the config file's folder, as in a project that installed it.
    mkdirSync(join(mocks.dir, 'node_modules', '@availity'), { recursive: true })
    symlinkSync(MOCK_DATA, join(mocks.dir, 'node_modules', '@availity', 'mock-data'), 'dir')
    const config = join(mocks.dir, 'config.js')
    writeFileSync(
      config,
      `export default { enabled: true, data: './data', routes: './routes.json', plugins: ['@availity/mock-data'], port: 0, pluginContext: 'http://localhost:3000', latency: 0 }\n`,
    )
    const { url, logs } = await startServer(config)
    expect(logs.warn).toEqual([])
    expect(logs.error).toEqual([])
    expect((await fetch(`${url}/v1/mine`)).status).toBe(200)
    const me = await fetch(`${url}/sdk/platform/v1/users/me`)
    expect(me.status).toBe(200)
    expect(await me.json()).toHaveProperty('id')
  })
})

describe('a misspelt routes option', () => {
  it('never serves the bundled example mocks: nothing is served, and the warning says why', async () => {
    const logs = captureLogs()
    const { url } = await startServer({ rotues: 'mocks/routes.json', latency: 0, logProvider: logs.logProvider } as MockyardOptions)
    expect(logs.warn).toEqual([
      '[mockyard] options#/rotues: unknown option "rotues", ignored. Did you mean "routes"? No routes are served. The bundled example mocks are served only when the options carry no unknown name.',
    ])
    expect(logs.info.join('\n')).not.toContain('bundled')
    expect((await fetch(`${url}/v1/users`)).status).toBe(404)
  })

  it('in a config file that serves nothing, the warning says no routes are served', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const config = join(mocks.dir, 'config.json')
    writeFileSync(config, JSON.stringify({ rotues: './routes.json', latency: 0, host: '127.0.0.1' }))
    const { logs, url } = await startServer(config)
    expect(logs.warn).toEqual([`[mockyard] ${config}#/rotues: unknown option "rotues", ignored. Did you mean "routes"? No routes are served.`])
    expect((await fetch(`${url}/v1/x`)).status).toBe(404)
  })

  it('options without any unknown name and without routes still serve the bundled mocks', async () => {
    const logs = captureLogs()
    const { url } = await startServer({ latency: 0, user: null, logProvider: logs.logProvider } as MockyardOptions)
    expect(logs.warn).toEqual([])
    expect((await fetch(`${url}/v1/users`)).status).toBe(200)
  })
})

describe('plugins resolve as import() would from the config file', () => {
  it('nested export conditions: { ".": { "import": { "default": "./index.js" } } }', async () => {
    const dir = tempDir()
    writeTree(dir, {
      'node_modules/nested-plugin/package.json': JSON.stringify({ name: 'nested-plugin', type: 'module', exports: { '.': { import: { default: './index.js' } } } }),
      'node_modules/nested-plugin/index.js': `export default { routes: { 'v1/nested': { file: 'n.json' } }, data: './data' }\n`,
      'node_modules/nested-plugin/data/n.json': '{"from":"nested"}',
      'config.json': JSON.stringify({ plugins: ['nested-plugin'], latency: 0 }),
    })
    const { url, logs } = await startServer(join(dir, 'config.json'))
    expect(logs.warn).toEqual([])
    expect(await (await fetch(`${url}/v1/nested`)).json()).toEqual({ from: 'nested' })
  })

  it('a package with only a require entry still loads', async () => {
    const dir = tempDir()
    writeTree(dir, {
      'node_modules/cjs-plugin/package.json': JSON.stringify({ name: 'cjs-plugin', exports: { '.': { require: './index.cjs' } } }),
      'node_modules/cjs-plugin/index.cjs': `module.exports = { routes: { 'v1/cjs': { file: 'c.json' } }, data: __dirname + '/data' }\n`,
      'node_modules/cjs-plugin/data/c.json': '{"from":"cjs"}',
      'config.json': JSON.stringify({ plugins: ['cjs-plugin'], latency: 0 }),
    })
    const { url } = await startServer(join(dir, 'config.json'))
    expect(await (await fetch(`${url}/v1/cjs`)).json()).toEqual({ from: 'cjs' })
  })
})

describe('data files', () => {
  it('a data folder that does not exist is one warning naming it, not one per file', async () => {
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' }, 'v1/b': { file: 'b.json', get: [{ file: 'c.json', params: { q: 1 } }] } })
    const missing = join(mocks.dir, 'no-such-data')
    const logs = captureLogs()
    const { url } = await startServer({ routes: [mocks.routes, mocks.routes], data: missing, latency: 0, logProvider: logs.logProvider })
    expect(logs.warn).toEqual([
      `[mockyard] ${mocks.routes}#: the data folder ${missing} does not exist, so none of the data files these routes name can be served. Create the folder, or point the data option at the folder that holds the files (requests for them answer 404 until then).`,
    ])
    expect((await fetch(`${url}/v1/a`)).status).toBe(404)
  })

  it('an empty .json file is served as an empty body, without a warning (@availity/mock-data ships one)', async () => {
    const logs = captureLogs()
    const { url } = await startServer({ plugins: [MOCK_DATA + '/index.js'], latency: 0, logProvider: logs.logProvider })
    expect(logs.warn).toEqual([])
    const res = await fetch(`${url}/v1/log-messages`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(await res.text()).toBe('')
  })
})

describe('log lines', () => {
  it('MockServer.start() logs its listening line through the logger, as the CLI prints it', async () => {
    const logs = captureLogs()
    const { server } = await startServer({ routes: writeMocks({}).routes, logProvider: logs.logProvider })
    const { port } = server.config().server!.address() as { port: number }
    expect(logs.info).toContain(`mockyard listening on http://127.0.0.1:${port}`)
  })

  it.runIf(hasIpv6Loopback())('MockServer on ::1 logs http://[::1]:PORT, the bracketed URL the CLI prints, and that URL answers', async () => {
    const logs = captureLogs()
    const server = new MockServer({ routes: writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json')).routes, latency: 0, logProvider: logs.logProvider })
    stops.push(() => server.stop())
    const { port } = await server.start({ host: '::1', port: 0 })
    const line = logs.info.find((l) => l.startsWith('mockyard listening on '))
    expect(line).toBe(`mockyard listening on http://[::1]:${port}`)
    expect((await fetch(`${line!.slice('mockyard listening on '.length)}/v1/x`)).status).toBe(200)
  })

  it('GET / (the package name, description and version) is logged with its status, and recorded', async () => {
    const logs = captureLogs()
    const { url, server } = await startServer({ routes: writeMocks({}).routes, latency: 0, logProvider: logs.logProvider })
    const res = await fetch(`${url}/`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ name: 'mockyard' })
    expect(logs.info.some((line) => /^GET \/ 200 \/ \(package info\) [\d.]+ms$/.test(line))).toBe(true)
    expect(server.harness!.requests({ path: '/' })[0]).toMatchObject({ method: 'GET', status: 200 })
  })
})
