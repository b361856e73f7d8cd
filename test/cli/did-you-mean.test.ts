/**
 * "Did you mean" for the names a user types (docs/behaviour.md, "Errors and limits" and
 * "Options"): an unknown key of a routes file, a data file that does not exist (the load warning
 * and the request's 404), and a --config, --routes or --data path that does not exist. Real CLI
 * processes over real files.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { killClis, runCli, startCli } from './support.js'

afterEach(killClis)

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A temp app folder with the given files (paths relative to it). */
function app(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-dym-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}

const SERVE = ['--port', '0', '--latency', '0', '--host', '127.0.0.1', '--no-watch']

describe('did you mean', () => {
  it('a misspelt command, and a misspelt flag of every command, name the one meant; mockyard help is mockyard --help', () => {
    expect(runCli(['chek'])).toMatchObject({ code: 2, stderr: '[mockyard] unknown command chek: did you mean mockyard check? The commands are check, init, record and import. Run mockyard --help for the flags.\n' })
    expect(runCli(['serve', '--port', '0']).stderr).toBe('[mockyard] unknown command serve: mockyard serves the mocks with flags alone (mockyard --port 3001), and its commands are check, init, record and import. Run mockyard --help for the flags.\n')
    expect(runCli(['help'])).toMatchObject({ code: 0, stdout: runCli(['--help']).stdout })
    expect(runCli(['record', '--taget', 'http://127.0.0.1:9'])).toMatchObject({ code: 2, stderr: '[mockyard] record: unknown flag --taget: did you mean --target? Run mockyard record --help for the options.\n' })
    expect(runCli(['import', 'x.har', '--ot', 'm'])).toMatchObject({ code: 2, stderr: '[mockyard] import: unknown flag --ot: did you mean --out? Run mockyard import --help for the options.\n' })
  })

  it('an unknown route key: the warning names file, JSON path and the key meant', async () => {
    const dir = app({ 'mocks/routes.json': JSON.stringify({ 'v1/users': { fiel: 'users.json' }, 'v1/other': { get: [{ file: 'users.json', params: { q: { pattern: 'a', flgs: 'i' } } }] } }), 'mocks/data/users.json': '[]' })
    const { stderr } = await startCli(['--routes', 'mocks/routes.json', ...SERVE], { cwd: dir })
    expect(stderr()).toContain('routes.json#/v1~1users/fiel: unknown key "fiel" in a route; it is ignored. Did you mean "file"?')
    expect(stderr()).toContain('routes.json#/v1~1other/get/0/params/q/flgs: unknown key "flgs" in a pattern condition. Did you mean "flags"?')
  })

  it('a missing data file: the load warning and the 404 name the closest file of the data folder', async () => {
    const dir = app({ 'mocks/routes.json': JSON.stringify({ 'v1/users': { file: 'userz.json' }, 'v1/nested': { file: 'v1/ordrs.json' } }), 'mocks/data/users.json': '[]', 'mocks/data/v1/orders.json': '[]' })
    const data = join(dir, 'mocks', 'data')
    const { url, stderr } = await startCli(['--routes', 'mocks/routes.json', ...SERVE], { cwd: dir })
    expect(stderr()).toContain(`routes.json#/v1~1users/file: the data file "userz.json" does not exist in ${data}. Did you mean "users.json"?`)
    expect(stderr()).toContain(`routes.json#/v1~1nested/file: the data file "v1/ordrs.json" does not exist in ${data}. Did you mean "v1/orders.json"?`)
    const res = await fetch(`${url}/v1/users`)
    expect(res.status).toBe(404)
    expect(((await res.json()) as { message: string }).message).toContain(`the file "userz.json" of route v1/users (GET default) does not exist in ${data}; did you mean "users.json"? Fix the name in the route, or add the file`)
    // The server keeps serving.
    expect((await fetch(`${url}/v1/nested`)).status).toBe(404)
  })

  it('no close name (orders.json is not a typo of users.json): the old advice, no guess', async () => {
    const dir = app({ 'mocks/routes.json': JSON.stringify({ 'v1/users': { file: 'orders.json', bogus: 1 } }), 'mocks/data/users.json': '[]' })
    const { stderr } = await startCli(['--routes', 'mocks/routes.json', ...SERVE], { cwd: dir })
    expect(stderr()).toContain('does not exist in')
    expect(stderr()).toContain('unknown key "bogus" in a route; it is ignored. Remove it, or use one of')
    expect(stderr()).not.toMatch(/did you mean/i)
  })

  it('--config, --routes and --data pointing at a missing path name the closest existing one', async () => {
    const dir = app({ 'mocks/config.js': 'export default { routes: "./routes.json" }\n', 'mocks/routes.json': JSON.stringify({ 'v1/users': { file: 'users.json' } }), 'mocks/data/users.json': '[]' })
    const config = runCli(['--config', 'mocks/confg.js', ...SERVE], { cwd: dir })
    expect(config.code).toBe(1)
    expect(config.stderr).toContain(`${join(dir, 'mocks', 'confg.js')}#: the config file cannot be read. Did you mean ${join(dir, 'mocks', 'config.js')}?`)

    const routes = runCli(['--routes', 'mocks/rotues.json', ...SERVE], { cwd: dir })
    expect(routes.code).toBe(1)
    expect(routes.stderr).toContain(`${join(dir, 'mocks', 'rotues.json')}#: the routes file cannot be read (ENOENT). Did you mean ${join(dir, 'mocks', 'routes.json')}?`)

    const { stderr } = await startCli(['--routes', 'mocks/routes.json', '--data', 'mocks/dta', ...SERVE], { cwd: dir })
    expect(stderr()).toContain(`the data folder ${join(dir, 'mocks', 'dta')} does not exist, so none of the data files these routes name can be served. Did you mean ${join(dir, 'mocks', 'data')}?`)
  })

  it('a routes path in a config file, too', () => {
    const dir = app({ 'mocks/config.json': JSON.stringify({ routes: './rotues.json' }), 'mocks/routes.json': '{}' })
    const { code, stderr } = runCli(SERVE, { cwd: dir })
    expect(code).toBe(1)
    expect(stderr).toContain(`Did you mean ${join(dir, 'mocks', 'routes.json')}?`)
  })
})
