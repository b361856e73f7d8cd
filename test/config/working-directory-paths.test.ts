/**
 * docs/options.md and docs/migration.md: relative paths in a config file resolve from that file's
 * folder. A config written for @availity/mock-server, which read `routes` and `data` from the
 * working directory, names `./mocks/routes.json` from `mocks/config.js`: the rule stays, and the
 * message says why the folder is doubled and what to write instead.
 */
import { realpathSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigError, MockServer, startMockServer } from 'mockyard/node'
import { captureLogs, removeTempDirs, tempDir, writeTree } from '../support/routes.js'

afterAll(removeTempDirs)

const started = process.cwd()
let project: string
let server: { stop(): Promise<unknown> } | undefined

beforeEach(() => {
  // The real path: the messages name folders as process.cwd() gives them.
  project = realpathSync(tempDir())
  writeTree(project, {
    'mocks/routes.json': JSON.stringify({ 'v1/users': { file: 'users.json' } }),
    'mocks/data/users.json': '{"users":[]}',
  })
  process.chdir(project)
})

afterEach(async () => {
  process.chdir(started)
  await server?.stop()
  server = undefined
})

/** Writes `mocks/config.js` with these options and starts a `MockServer` on it, as an old project does. */
async function load(options: Record<string, unknown>, logs = captureLogs()): Promise<string> {
  writeTree(project, { 'mocks/config.js': `export default ${JSON.stringify({ latency: 0, ...options })}\n` })
  const mock = new MockServer('mocks/config.js')
  server = mock
  return (await mock.start({ port: 0, logProvider: logs.logProvider })).url
}

async function loadError(options: Record<string, unknown>): Promise<ConfigError> {
  try {
    await load(options)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  throw new Error('expected the load to fail with a ConfigError')
}

describe('paths written from the working directory in a config file', () => {
  it('routes and data: the error says where they resolve from, that the old server read them from the working directory, and what to write', async () => {
    const error = await loadError({ routes: './mocks/routes.json', data: './mocks/data' })
    const mocks = join(project, 'mocks')
    expect(error.problems).toHaveLength(1)
    expect(error.message).toBe(
      `[mockyard] the configuration has 1 problem:\n  - ${mocks}/mocks/routes.json#: the routes file cannot be read (ENOENT). Relative paths in a config file resolve from its folder (${mocks}): the routes option "./mocks/routes.json" of ${mocks}/config.js names ${mocks}/mocks/routes.json. @availity/mock-server read them from the working directory, where ${mocks}/routes.json exists. Write the path relative to the config file ("./routes.json") or absolute. The data option "./mocks/data" has the same problem: write "./data".`,
    )
  })

  it('data alone: the warning says so, and the routes load', async () => {
    const logs = captureLogs()
    const url = await load({ routes: './routes.json', data: 'mocks/data' }, logs)
    const mocks = join(project, 'mocks')
    expect(logs.warn).toEqual([
      `[mockyard] ${mocks}/routes.json#: the data folder ${mocks}/mocks/data does not exist, so none of the data files these routes name can be served. Relative paths in a config file resolve from its folder (${mocks}): the data option "mocks/data" of ${mocks}/config.js names ${mocks}/mocks/data. @availity/mock-server read them from the working directory, where ${mocks}/data exists. Write the path relative to the config file ("./data") or absolute.`,
    ])
    expect((await fetch(`${url}/v1/users`)).status).toBe(404)
  })

  it('one routes file of several; a path that exists from neither folder keeps the usual message', async () => {
    const error = await loadError({ routes: ['./routes.json', './mocks/routes.json', './mocks/other.json'] })
    const mocks = join(project, 'mocks')
    expect(error.problems.map((p) => `${p.file}: ${p.fix}`)).toEqual([
      `${mocks}/mocks/routes.json: Relative paths in a config file resolve from its folder (${mocks}): the routes option "./mocks/routes.json" of ${mocks}/config.js names ${mocks}/mocks/routes.json. @availity/mock-server read them from the working directory, where ${mocks}/routes.json exists. Write the path relative to the config file ("./routes.json") or absolute.`,
      `${mocks}/mocks/other.json: Check the path in the routes option.`,
    ])
  })

  it('paths given in code resolve from the working directory, with no such message', async () => {
    const running = await startMockServer({ routes: './mocks/routes.json', data: './mocks/data', latency: 0, logProvider: captureLogs().logProvider })
    server = running
    expect(await (await fetch(`${running.url}/v1/users`)).json()).toEqual({ users: [] })
  })
})
