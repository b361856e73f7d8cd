/**
 * Packaging: the packed tarball installs into a fresh project, every entry point imports (and
 * the environment-specific ones refuse the wrong environment), and the bin runs.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; version: string }
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 })

let project: string

beforeAll(() => {
  const packDir = mkdtempSync(join(tmpdir(), 'mockyard-pack-'))
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], ROOT)) as Array<{ filename: string }>
  const tarball = join(packDir, packed[0]!.filename)
  project = mkdtempSync(join(tmpdir(), 'mockyard-consumer-'))
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  const versionOf = (name: string) => JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.resolve(`${name}/package.json`))), 'package.json'), 'utf8')).version as string
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', tarball, `msw@${versionOf('msw')}`, `vitest@${versionOf('vitest')}`], project)
}, 300_000)

describe('the packed package', () => {
  // JSON files (package.json, the routes schema) are not modules with types: tested below.
  const entries = Object.entries(pkg.exports).filter(([key]) => !key.endsWith('.json'))

  // mockyard/vitest registers Vitest hooks: it is imported by a real Vitest run below.
  it.each(entries.filter(([key]) => key !== './vitest').map(([key, value]) => [key, value]))('%s resolves and imports in Node (or refuses, when browser-only)', (key, value) => {
    const specifier = 'mockyard' + (key === '.' ? '' : key.slice(1))
    const script = `import(${JSON.stringify(specifier)}).then((m) => console.log(JSON.stringify(Object.keys(m))), (e) => { console.log('ERR ' + e.code); process.exit(3) })`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    if ((value as { node?: null }).node === null) {
      expect(result.stdout).toContain('ERR ERR_PACKAGE_PATH_NOT_EXPORTED')
    } else {
      expect(result.stderr).toBe('')
      expect(JSON.parse(result.stdout).length).toBeGreaterThan(0)
    }
  })

  it('ships types for every entry point', () => {
    for (const [, value] of entries) {
      const types = (value as { types?: string }).types
      expect(types).toBeTruthy()
      expect(() => readFileSync(join(project, 'node_modules', 'mockyard', types!))).not.toThrow()
    }
  })

  it('mockyard/vitest serves the bundled mocks in a real Vitest run of the consumer', () => {
    writeFileSync(
      join(project, 'mocks.test.js'),
      `import { expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
const mocks = setupMockServer('node_modules/mockyard/mocks/config.js')
it('answers routes and notifications', async () => {
  expect((await fetch('http://api.test/v1/users')).status).toBe(200)
  const list = await (await fetch('http://api.test/api/v1/notifications?limit=3')).json()
  expect(list.count).toBe(3)
  expect(mocks.requests()).toHaveLength(2)
})
`,
    )
    const result = spawnSync(process.execPath, [join(project, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'mocks.test.js'], { cwd: project, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
    expect(result.stdout + result.stderr).toContain('1 passed')
    expect(result.status).toBe(0)
  })

  it('ships the JSON Schema of routes files as mockyard/schema/routes.json', () => {
    const script = `import('mockyard/schema/routes.json', { with: { type: 'json' } }).then((m) => console.log(m.default.title))`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    expect(result.stdout.trim()).toBe('mockyard routes file')
  })

  it('mockyard check runs from the installed package, its validator and parsers included', () => {
    const mocks = join(project, 'node_modules', 'mockyard', 'mocks')
    const args = [join(project, 'node_modules', '.bin', 'mockyard'), 'check', '--config', join(mocks, 'config.js'), '--openapi', join(mocks, 'openapi.yaml')]
    const result = spawnSync(process.execPath, args, { cwd: project, encoding: 'utf8' })
    expect(result.stdout).toContain('[mockyard] check: no problems.')
    expect(result.status).toBe(0)
  })

  it('the bin runs', () => {
    const result = spawnSync(process.execPath, [join(project, 'node_modules', '.bin', 'mockyard'), '--version'], { cwd: project, encoding: 'utf8' })
    expect(result.stdout.trim()).toBe(pkg.version)
  })

  it('serves the bundled mocks from the installed package', async () => {
    const script = `import { startMockServer } from 'mockyard/node'
const s = await startMockServer({ routes: 'node_modules/mockyard/mocks/routes.json', data: 'node_modules/mockyard/mocks/data' })
const r = await fetch(s.url + '/v1/users'); console.log(r.status); await s.stop()`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' })
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe('200')
  })
})
