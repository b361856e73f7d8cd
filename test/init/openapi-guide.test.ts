/**
 * docs/openapi.md, run as a reader follows it: its document written into an app that has this
 * package installed (linked, its built `dist/`: `npm run build` first), its commands run in
 * order (`npm install` aside), its Vitest test file run by the `npx vitest run` command. The
 * guide's blocks are marked "not run" for test/readme because they need one another, in order.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { codeBlocks, ROOT } from '../readme/docs.js'

const blocks = codeBlocks('docs/openapi.md')
const only = (found: typeof blocks, what: string) => {
  expect(found.length, what).toBe(1)
  return found[0]!
}

let app: string

/** Runs a line of the guide's commands in the app: `npx mockyard ...` with the linked bin, `npx vitest ...` with Vitest. */
function runLine(line: string) {
  const [tool, ...args] = line.replace(/^npx\s+/, '').split(/\s+/)
  const script = tool === 'mockyard' ? join(app, 'node_modules', 'mockyard', 'dist', 'cli', 'bin.js') : join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
  return spawnSync(process.execPath, [script, ...args], { cwd: app, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
}

beforeAll(() => {
  // Inside the repository, so the test file's imports (vitest, msw) resolve from its node_modules.
  mkdirSync(join(ROOT, '.tmp'), { recursive: true })
  app = mkdtempSync(join(ROOT, '.tmp', 'openapi-guide-'))
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'openapi-guide-app', private: true, type: 'module' }))
  mkdirSync(join(app, 'node_modules'), { recursive: true })
  symlinkSync(ROOT, join(app, 'node_modules', 'mockyard'), 'dir')
  writeFileSync(join(app, 'vitest.config.mjs'), 'export default {}\n')
})

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true })
})

describe('docs/openapi.md: from an OpenAPI document to a green Vitest test', () => {
  it('its commands write the mocks, check them against the document, and its test passes on them', () => {
    writeFileSync(join(app, 'openapi.yaml'), only(blocks.filter((b) => b.lang === 'yaml'), 'the document').code)
    const test = only(blocks.filter((b) => b.lang === 'ts' && b.code.includes('setupMockServer')), 'the test file')
    const name = /^\/\/ (\S+\.test\.ts)\n/.exec(test.code)![1]!
    writeFileSync(join(app, name), test.code)
    const commands = only(blocks.filter((b) => b.lang === 'sh' && b.code.includes('mockyard init')), 'the commands')
    const lines = commands.code.trim().split('\n').filter((line) => !line.startsWith('npm install'))
    expect(lines).toEqual(['npx mockyard init --openapi openapi.yaml', 'npx mockyard check --openapi openapi.yaml', 'npx vitest run'])

    const init = runLine(lines[0]!)
    expect(init.status, init.stderr).toBe(0)
    // The output the guide shows, as printed.
    expect(readFileSync(join(ROOT, 'docs/openapi.md'), 'utf8')).toContain(init.stderr.trim())
    const routes = readFileSync(join(app, 'mocks/routes.json'), 'utf8')
    // The entry the guide shows is one init wrote.
    const shown = only(blocks.filter((b) => b.lang === 'json'), 'the entry').code.trim()
    expect(JSON.parse(routes)['api/v1/pets/:petId'].get).toContainEqual(JSON.parse(shown))

    const check = runLine(lines[1]!)
    expect(check.stdout).toContain('check: no problems.')
    expect(check.status).toBe(0)

    const vitest = runLine(lines[2]!)
    expect(vitest.stdout + vitest.stderr).toMatch(/Tests\s+3 passed/)
    expect(vitest.status).toBe(0)
  }, 180_000)
})
