/**
 * A config (or a command line) with several bad options lists every one, each with its path and
 * fix (docs/behaviour.md, "Options"): wrong types and unknown names together, not only the first
 * or only the errors. Real CLI processes.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, startMockServer } from 'mockyard/node'
import { runCli } from './support.js'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** An app folder whose mocks/config.js exports `options`. */
function appWithConfig(options: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-bad-options-'))
  dirs.push(dir)
  mkdirSync(join(dir, 'mocks'))
  writeFileSync(join(dir, 'mocks', 'config.js'), `export default ${options}\n`)
  return dir
}

const CONFIG = '{ routes: {}, latancy: 3, prot: 3, requestLog: { limt: 0 }, sessions: 4, port: "x" }'

describe('several bad options', () => {
  it('bad flags: every one is listed, and mockyard exits 2', () => {
    const { code, stderr } = runCli(['--port', 'x', '--latency', 'slow', '--log', 'loud'])
    expect(code).toBe(2)
    expect(stderr).toContain('--port takes a whole number, got "x"')
    expect(stderr).toContain('--latency takes a whole number, got "slow"')
    expect(stderr).toContain('--log takes one of silent, error, warn, info, debug, got "loud"')
  })

  it('flag values the option rules refuse are bad flags too, named as flags: exit 2', () => {
    const { code, stderr } = runCli(['--port', '99999', '--limit', 'abc', '--proxy', 'notaurl', '--no-watch'])
    expect({ code, lines: stderr.trim().split('\n') }).toEqual({
      code: 2,
      lines: [
        '[mockyard] --port: port must be a whole number from 0 to 65535, got 99999. For example --port 3001.',
        '[mockyard] --limit: limit must be a size such as "50mb" or a number of bytes, got "abc". For example --limit 10mb.',
        '[mockyard] --proxy: proxy must be an http or https URL, got "notaurl". For example --proxy http://localhost:8080.',
      ],
    })
  })

  it('a config file with wrong types and unknown names: the failure lists all of them', () => {
    const dir = appWithConfig(CONFIG)
    const config = join(dir, 'mocks', 'config.js')
    const { code, stderr } = runCli(['--port', '0'], { cwd: dir })
    expect(code).toBe(1)
    expect(stderr).toContain('the configuration has 2 problems:')
    expect(stderr).toContain('\nand 3 warnings:\n')
    expect(stderr).toContain(`${config}#/sessions: sessions must be an object. Set sessions to { limit: ... }.`)
    expect(stderr).toContain(`${config}#/latancy: unknown option "latancy", ignored. Did you mean "latency"?`)
    expect(stderr).toContain(`${config}#/prot: unknown option "prot", ignored. Did you mean "port"?`)
    expect(stderr).toContain(`${config}#/requestLog/limt: unknown option "requestLog.limt", ignored. Did you mean "requestLog.limit"?`)
    // The flag --port 0 wins over the file's "x", which is reported all the same.
    expect(stderr).toContain(`${config}#/port: port must be a whole number`)
  })

  it('a config module that does not parse, or throws as it runs: the failure names its line and column', () => {
    const syntax = appWithConfig('{\n  routes: {},\n  latency: 10,,\n}')
    const broken = runCli(['--port', '0'], { cwd: syntax })
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain(`${join(syntax, 'mocks', 'config.js')}#: the config file failed to load: Unexpected token ',' (line 3, column 15: latency: 10,,). Fix the error in the config module`)
    const thrown = appWithConfig('{\n  routes: notDefined(),\n}')
    expect(runCli(['--port', '0'], { cwd: thrown }).stderr).toContain(`${join(thrown, 'mocks', 'config.js')}#: the config file failed to load: notDefined is not defined (line 2, column 11: routes: notDefined(),). Fix the error`)
    // Through a symlinked folder (macOS /tmp), where node names the module by its real path.
    const linked = `${syntax}-link`
    symlinkSync(syntax, linked)
    dirs.push(linked)
    expect(runCli(['--port', '0', '--config', join(linked, 'mocks', 'config.js')]).stderr).toContain('(line 3, column 15: latency: 10,,)')
  })

  it('mockyard check reports each one, unknown names included', () => {
    const dir = appWithConfig(CONFIG)
    const { code, stdout } = runCli(['check'], { cwd: dir })
    expect(code).toBe(1)
    expect(stdout).toContain('mocks/config.js#/latancy: unknown option "latancy", ignored. Did you mean "latency"?')
    expect(stdout).toContain('mocks/config.js#/prot: unknown option "prot", ignored. Did you mean "port"?')
    expect(stdout).toContain('mocks/config.js#/requestLog/limt: unknown option "requestLog.limt", ignored.')
    expect(stdout).toContain('mocks/config.js#/sessions: sessions must be an object.')
    expect(stdout).toContain('mocks/config.js#/port: port must be a whole number')
    expect(stdout).toContain('[mockyard] check: 5 problems.')
  })

  it('mockyard check: unknown names alone are problems too', () => {
    const dir = appWithConfig('{ routes: {}, latancy: 3, prot: 3 }')
    const { code, stdout } = runCli(['check'], { cwd: dir })
    expect(stdout).toContain('[mockyard] check: 2 problems.')
    expect(code).toBe(1)
  })

  it('in code too: the ConfigError keeps the errors as problems and lists the unknown names after them', async () => {
    const error = await startMockServer({ routes: {}, latency: 'slow', latancy: 0, port: 0 } as never).then(
      async (server) => {
        await server.stop()
        return undefined
      },
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems.map((p) => p.pointer)).toEqual(['/latency'])
    expect((error as ConfigError).warnings.map((p) => p.pointer)).toEqual(['/latancy'])
    expect((error as Error).message).toMatch(/has 1 problem:\n {2}- options#\/latency: .*\nand 1 warning:\n {2}- options#\/latancy: unknown option "latancy", ignored. Did you mean "latency"\?$/)
  })
})
