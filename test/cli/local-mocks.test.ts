/**
 * Where the CLI and `mockyard check` look for mocks when given neither --config nor --routes
 * (docs/behaviour.md, "Options"): mocks/config.*, else mocks/routes.json with mocks/data (what
 * record and import write), else, for the server only, the bundled example mocks. Real CLI
 * processes in temp app folders.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { killClis, runCli, startCli } from './support.js'
import { until } from '../support/routes.js'

afterEach(killClis)

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A temp app folder with the given files (paths relative to it). */
function app(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-local-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}

/** What `mockyard record` leaves behind: mocks/routes.json and its data files in mocks/data. */
const RECORDED = {
  'mocks/routes.json': JSON.stringify({ 'v1/recorded': { get: 'recorded.json' } }),
  'mocks/data/recorded.json': JSON.stringify({ recorded: true }),
}

describe('mockyard without --config and --routes', () => {
  it('serves mocks/routes.json with mocks/data, and says so', async () => {
    const dir = app(RECORDED)
    const { url, stderr } = await startCli(['--port', '0', '--latency', '0', '--host', '127.0.0.1'], { cwd: dir })
    expect(await (await fetch(`${url}/v1/recorded`)).json()).toEqual({ recorded: true })
    // Not the bundled mocks.
    expect((await fetch(`${url}/v1/users`)).status).toBe(404)
    expect(stderr()).toContain('[mockyard] no --config, no --routes and no mocks/config.js here: serving mocks/routes.json with the data folder mocks/data.')
    expect(stderr()).not.toContain('bundled')
  })

  it('prefers mocks/config.js to mocks/routes.json, and says so', async () => {
    const dir = app({
      ...RECORDED,
      'mocks/config.js': 'export default { routes: "./other.json", data: "./other" }\n',
      'mocks/other.json': JSON.stringify({ 'v1/configured': { file: 'configured.json' } }),
      'mocks/other/configured.json': JSON.stringify({ configured: true }),
    })
    const { url, stderr } = await startCli(['--port', '0', '--latency', '0', '--host', '127.0.0.1'], { cwd: dir })
    expect(await (await fetch(`${url}/v1/configured`)).json()).toEqual({ configured: true })
    expect((await fetch(`${url}/v1/recorded`)).status).toBe(404)
    expect(stderr()).toContain('[mockyard] no --config and no --routes: loading mocks/config.js.')
  })

  it('with neither serves the bundled example mocks, and says so', async () => {
    const dir = app({})
    const { url, stderr } = await startCli(['--port', '0', '--latency', '0', '--host', '127.0.0.1'], { cwd: dir })
    expect((await fetch(`${url}/v1/users`)).status).toBe(200)
    expect(stderr()).toContain('[mockyard] no mocks/config.js or mocks/routes.json here and no --routes: serving the bundled example mocks.')
  })

  it('--plugin adds to mocks/routes.json; alone, it stands in for the bundled mocks', async () => {
    const plugin = {
      'plug/index.js': "export default { routes: './routes.json' }\n",
      'plug/routes.json': JSON.stringify({ 'v1/plugin': { file: 'plugin.json' } }),
      'plug/data/plugin.json': JSON.stringify({ plugin: true }),
    }
    const both = await startCli(['--plugin', './plug/index.js', '--port', '0', '--latency', '0', '--host', '127.0.0.1'], { cwd: app({ ...RECORDED, ...plugin }) })
    expect(await (await fetch(`${both.url}/v1/plugin`)).json()).toEqual({ plugin: true })
    expect(await (await fetch(`${both.url}/v1/recorded`)).json()).toEqual({ recorded: true })
    expect(both.stderr()).toContain('serving mocks/routes.json with the data folder mocks/data.')
    const alone = await startCli(['--plugin', './plug/index.js', '--port', '0', '--latency', '0', '--host', '127.0.0.1'], { cwd: app(plugin) })
    expect(await (await fetch(`${alone.url}/v1/plugin`)).json()).toEqual({ plugin: true })
    expect((await fetch(`${alone.url}/v1/users`)).status).toBe(404)
    expect(alone.stderr()).not.toContain('bundled')
  })

  it('takes up mocks/data once record or import makes it beside the running listener', async () => {
    // A first routes file with its files beside it, as a hand-written start does.
    const dir = app({ 'mocks/routes.json': JSON.stringify({ 'v1/hand': { file: 'hand.json' } }), 'mocks/hand.json': '"beside"' })
    const { url, stderr } = await startCli(['--port', '0', '--latency', '0', '--host', '127.0.0.1'], { cwd: dir })
    expect(await (await fetch(`${url}/v1/hand`)).json()).toBe('beside')
    // What `mockyard record` writes next: mocks/data first, then routes.json by rename.
    mkdirSync(join(dir, 'mocks/data'))
    writeFileSync(join(dir, 'mocks/data/hand.json'), '"in data"')
    writeFileSync(join(dir, 'mocks/data/recorded.json'), JSON.stringify({ recorded: true }))
    writeFileSync(join(dir, 'mocks/routes.json.tmp'), JSON.stringify({ 'v1/hand': { file: 'hand.json' }, 'v1/recorded': { get: 'recorded.json' } }))
    renameSync(join(dir, 'mocks/routes.json.tmp'), join(dir, 'mocks/routes.json'))
    await until(async () => (await fetch(`${url}/v1/recorded`)).status === 200, 5000, 'the recorded route')
    expect(await (await fetch(`${url}/v1/recorded`)).json()).toEqual({ recorded: true })
    expect(await (await fetch(`${url}/v1/hand`)).json()).toBe('in data')
    expect(stderr()).toContain('[mockyard] the data folder of mocks/routes.json is now mocks/data (without a data option, a routes file\'s data subfolder is used whenever it exists).')
    // And followed there: an edit of a file in mocks/data is served.
    writeFileSync(join(dir, 'mocks/data/recorded.json'), JSON.stringify({ recorded: 'again' }))
    await until(async () => JSON.stringify(await (await fetch(`${url}/v1/recorded`)).json()) === '{"recorded":"again"}', 5000, 'an edit in mocks/data')
  })

  it('--data still picks the data folder of mocks/routes.json', async () => {
    const dir = app({ ...RECORDED, 'elsewhere/recorded.json': JSON.stringify({ elsewhere: true }) })
    const { url } = await startCli(['--port', '0', '--latency', '0', '--host', '127.0.0.1', '--data', 'elsewhere'], { cwd: dir })
    expect(await (await fetch(`${url}/v1/recorded`)).json()).toEqual({ elsewhere: true })
  })
})

describe('mockyard check without --config and --routes', () => {
  it('checks mocks/routes.json with mocks/data, and says so', () => {
    const dir = app({ ...RECORDED, 'mocks/routes.json': JSON.stringify({ 'v1/recorded': { get: 'recorded.json' }, 'v1/gone': { get: 'gone.json' } }) })
    const { code, stdout, stderr } = runCli(['check'], { cwd: dir })
    expect(stderr).toBe('[mockyard] no --config, no --routes and no mocks/config.js here: checking mocks/routes.json with the data folder mocks/data.\n')
    expect(stdout).toContain('mocks/routes.json#/v1~1gone/get: the data file "gone.json" does not exist in')
    expect(stdout).toContain('[mockyard] check: 1 problem.')
    expect(code).toBe(1)
  })

  it('checks mocks/config.js before mocks/routes.json, and says so', () => {
    const dir = app({ ...RECORDED, 'mocks/config.js': 'export default { routes: "./other.json" }\n', 'mocks/other.json': JSON.stringify({ 'v1/x': { get: 'x.json' } }) })
    const { code, stdout, stderr } = runCli(['check'], { cwd: dir })
    expect(stderr).toBe('[mockyard] no --config and no --routes: checking mocks/config.js.\n')
    expect(stdout).toContain('other.json#/v1~1x/get: the data file "x.json" does not exist')
    expect(code).toBe(1)
  })
})
