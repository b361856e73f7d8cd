/**
 * docs/behaviour.md, "Errors and limits" (a broken configuration) and its config errors example:
 * one ConfigError at load naming, for every problem, the file, the JSON path and what to do.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, startMockServer, type MockyardOptions } from 'mockyard/node'
import { captureLogs, named, removeTempDirs, tempDir, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const FIXTURES = fileURLToPath(new URL('../fixtures/rules/', import.meta.url))

/** The ConfigError a load fails with (the test fails when the load succeeds or fails otherwise). */
async function loadError(options: MockyardOptions): Promise<ConfigError> {
  let server
  try {
    server = await startMockServer({ logProvider: captureLogs().logProvider, ...options })
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  await server.stop()
  throw new Error('expected the load to fail with a ConfigError')
}

/** Every problem names its file, JSON pointer and fix, and the message repeats them. */
function expectWellFormed(error: ConfigError): void {
  expect(error.name).toBe('ConfigError')
  expect(error.problems.length).toBeGreaterThan(0)
  for (const problem of error.problems) {
    expect(problem.file.length).toBeGreaterThan(0)
    expect(problem.message.length).toBeGreaterThan(0)
    expect(problem.fix.length).toBeGreaterThan(0)
    expect(error.message).toContain(`${problem.file}#${problem.pointer}`)
    expect(error.message).toContain(problem.fix)
  }
}

const pointers = (error: ConfigError) => error.problems.map((p) => p.pointer).sort()

describe('the config errors example', () => {
  it('one error naming routes.json and the three JSON paths, each with what to do', async () => {
    const mocks = writeMocks(
      `{
  "v1/bad": {
    "get": [ { "file": "../../etc/passwd" }, { "file": "x.json", "params": { "q": { "pattern": "(" } } } ],
    "latency": "slow"
  }
}
`,
      named('x.json'),
    )
    const error = await loadError({ routes: mocks.routes })
    expectWellFormed(error)
    expect(pointers(error)).toEqual(['/v1~1bad/get/0/file', '/v1~1bad/get/1/params/q/pattern', '/v1~1bad/latency'])
    for (const problem of error.problems) expect(problem.file).toBe(mocks.routes)
    const byPointer = Object.fromEntries(error.problems.map((p) => [p.pointer, p.message]))
    expect(byPointer['/v1~1bad/get/0/file']).toMatch(/outside the data folder/)
    expect(byPointer['/v1~1bad/get/1/params/q/pattern']).toMatch(/invalid regular expression/)
    expect(byPointer['/v1~1bad/latency']).toMatch(/number/)
    expect(error.message).toContain(`${mocks.routes}#/v1~1bad/get/0/file`)
  })
})

describe('kinds of problems', () => {
  it('bad JSON: line and column', async () => {
    const text = '{\n  "v1/x": { "file": "a.json", }\n}\n'
    const mocks = writeMocks(text, named('a.json'))
    const error = await loadError({ routes: mocks.routes })
    expectWellFormed(error)
    expect(error.problems).toHaveLength(1)
    const column = text.split('\n')[1]!.indexOf('}') + 1
    expect(error.problems[0]).toMatchObject({ file: mocks.routes, pointer: '' })
    expect(error.problems[0]!.message).toContain(`line 2, column ${column}`)
  })

  it('an unreadable routes file', async () => {
    const path = join(tempDir(), 'nope', 'routes.json')
    const error = await loadError({ routes: path })
    expectWellFormed(error)
    expect(error.problems[0]!.file).toBe(path)
  })

  it('wrong types in the options, all at once (an unknown option is only a warning: docs/behaviour.md, "Options")', async () => {
    const mocks = writeMocks({ 'v1/x': { file: 'a.json' } }, named('a.json'))
    const error = await loadError({ routes: mocks.routes, latency: 'slow', port: 70000, watch: 'yes', limit: 'lots', bogus: 1 } as never)
    expectWellFormed(error)
    expect(pointers(error)).toEqual(['/latency', '/limit', '/port', '/watch'])
    for (const problem of error.problems) expect(problem.file).toBe('options')
  })

  it('wrong types in a routes file, all at once', async () => {
    const mocks = writeMocks(
      {
        'v1/x': {
          status: '200',
          get: 5,
          responseHeader: 'x-a: 1',
          post: [{ params: [1] }, { file: 'a.json', response: {} }, { file: 'a.json', response: [{ repeat: 'twice' }] }],
        },
      },
      named('a.json'),
    )
    const error = await loadError({ routes: mocks.routes })
    expectWellFormed(error)
    expect(pointers(error)).toEqual(['/v1~1x/get', '/v1~1x/post/0/params', '/v1~1x/post/1/response', '/v1~1x/post/2/response/0/repeat', '/v1~1x/responseHeader', '/v1~1x/status'].sort())
  })

  it('invalid regular expressions in params and headers', async () => {
    const mocks = writeMocks({ 'v1/x': { get: [{ file: 'a.json', params: { a: { pattern: '[' } }, headers: { 'X-A': { pattern: '(?<' } } }] } }, named('a.json'))
    const error = await loadError({ routes: mocks.routes })
    expectWellFormed(error)
    expect(pointers(error)).toEqual(['/v1~1x/get/0/headers/X-A/pattern', '/v1~1x/get/0/params/a/pattern'])
  })

  it('a file that escapes its data folder, wherever a file is named', async () => {
    const mocks = writeMocks(
      {
        'v1/a': { file: '../secret.json' },
        'v1/b': { get: '/etc/passwd' },
        'v1/c': { get: [{ params: {}, file: 'sub/../../secret.json' }] },
        'v1/d': { get: [{ response: [{ file: '..\\secret.json' }] }] },
      },
      named('a.json'),
    )
    const error = await loadError({ routes: mocks.routes })
    expectWellFormed(error)
    expect(pointers(error)).toEqual(['/v1~1a/file', '/v1~1b/get', '/v1~1c/get/0/file', '/v1~1d/get/0/response/0/file'])
  })

  it('a plugin that cannot be loaded (missing package, missing file, module that throws)', async () => {
    const error = await loadError({
      plugins: ['mockyard-rules-no-such-plugin', join(FIXTURES, 'no-such-plugin.js'), join(FIXTURES, 'throwing-plugin.js')],
    })
    expectWellFormed(error)
    expect(pointers(error)).toEqual(['/plugins/0', '/plugins/1', '/plugins/2'])
    expect(error.problems[2]!.message).toContain('this plugin always fails to load')
  })

  it('problems in several routes files are reported together', async () => {
    const one = writeMocks({ 'v1/a': { status: 'ok' } })
    const two = writeMocks('{ "v1/b": ', {})
    const error = await loadError({ routes: [one.routes, two.routes] })
    expectWellFormed(error)
    expect(error.problems.map((p) => p.file).sort()).toEqual([one.routes, two.routes].sort())
  })

  it('problems in the options, the plugins and the routes are reported together', async () => {
    const mocks = writeMocks({ 'v1/a': { status: 'ok' } })
    const error = await loadError({ routes: mocks.routes, plugins: [join(FIXTURES, 'no-such-plugin.js')], latency: 'slow' } as never)
    expectWellFormed(error)
    expect(pointers(error)).toEqual(['/latency', '/plugins/0', '/v1~1a/status'])
  })
})
