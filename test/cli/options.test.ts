/**
 * docs/behaviour.md, "Options", on the command line (dist/: `npm run build` first): a misspelt
 * flag exits 2 naming the closest flag; a config file with an unknown option starts with a
 * warning; the `ekko` block of an @availity/workflow project, with @availity/mock-data as a
 * plugin, starts without one.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { named, removeTempDirs, writeMocks } from '../support/routes.js'
import { killClis, runCli, startCli } from './support.js'

const MOCK_DATA = dirname(createRequire(import.meta.url).resolve('@availity/mock-data/package.json'))

afterEach(killClis)
afterAll(removeTempDirs)

const env = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' }

function runSync(args: string[]) {
  const { code, stderr } = runCli(args, { env })
  return { code, stderr }
}

const start = (args: string[]) => startCli(args, { env })

describe('flags', () => {
  it('a misspelt flag exits 2 naming the closest one', () => {
    expect(runSync(['--prot', '3001'])).toEqual({ code: 2, stderr: '[mockyard] unknown flag --prot: did you mean --port? Run mockyard --help for the flags.\n' })
    expect(runSync(['--rotues', 'x.json']).stderr).toContain('did you mean --routes?')
    expect(runSync(['--no-wacth']).stderr).toContain('did you mean --no-watch?')
  })

  it('a flag close to none exits 2 without a guess', () => {
    expect(runSync(['--frobnicate'])).toEqual({ code: 2, stderr: '[mockyard] unknown flag --frobnicate: mockyard has no such flag. Run mockyard --help for the flags.\n' })
  })
})

describe('config files', () => {
  it('an unknown option in the config file is a warning, and the server starts', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const config = join(mocks.dir, 'config.js')
    writeFileSync(config, `export default { routes: './routes.json', latancy: 0 }\n`)
    const { url, stderr } = await start(['--config', config, '--port', '0', '--host', '127.0.0.1'])
    expect((await fetch(`${url}/v1/x`)).status).toBe(200)
    expect(stderr()).toContain(`[mockyard] ${config}#/latancy: unknown option "latancy", ignored. Did you mean "latency"?`)
  })

  it("an @availity/workflow project's ekko block starts without a warning, with @availity/mock-data as a plugin", async () => {
    const mocks = writeMocks({ 'v1/mine': { file: 'a.json' } }, named('a.json'))
    mkdirSync(join(mocks.dir, 'node_modules', '@availity'), { recursive: true })
    symlinkSync(MOCK_DATA, join(mocks.dir, 'node_modules', '@availity', 'mock-data'), 'dir')
    const config = join(mocks.dir, 'config.js')
    writeFileSync(
      config,
      `const ekko = { enabled: true, data: './data', routes: './routes.json', plugins: ['@availity/mock-data'], port: 0, pluginContext: 'http://localhost:3000', latency: 0 }\nexport default ekko\n`,
    )
    const { url, stderr } = await start(['--config', config, '--host', '127.0.0.1', '--no-watch'])
    expect((await fetch(`${url}/v1/mine`)).status).toBe(200)
    expect((await fetch(`${url}/sdk/platform/v1/users/me`)).status).toBe(200)
    const empty = await fetch(`${url}/v1/log-messages`)
    expect([empty.status, await empty.text()]).toEqual([200, ''])
    expect(stderr()).not.toContain('unknown option')
    expect(stderr()).not.toContain('not valid JSON')
  })
})
