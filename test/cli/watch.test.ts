/**
 * Live reload and shutdown of the CLI as users meet them (docs/behaviour.md, "Live reload and the
 * working folder", "Signals and shutdown", "Security"): the built CLI run by Node 24 in an app
 * folder with a node_modules, its output redirected into a log file inside that folder (what
 * `npx mockyard ... > out.log 2>&1` does), edits made the ways editors and tools make them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const NODE = fileURLToPath(new URL('../../node_modules/.bin/node', import.meta.url))
const children: ChildProcess[] = []
const dirs: string[] = []

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempApp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-watch-'))
  dirs.push(dir)
  return dir
}

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, text)
}

/** A node_modules of `count` small files in nested folders, like an app's. */
function fillNodeModules(app: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const folder = join(app, 'node_modules', `pkg-${i % 50}`, `lib-${i % 7}`)
    if (i < 350) mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, `file-${i}.js`), `module.exports = ${i}\n`)
  }
}

/** An app with project/config/routes.json and its data folder beside it. */
function appWithRoutes(app: string, routes: Record<string, unknown>, files: Record<string, string>): { routes: string; data: string } {
  const config = join(app, 'project', 'config')
  write(join(config, 'routes.json'), JSON.stringify(routes))
  for (const [name, text] of Object.entries(files)) write(join(config, 'data', name), text)
  return { routes: join(config, 'routes.json'), data: join(config, 'data') }
}

interface Running {
  child: ChildProcess
  url: string
  /** Everything the CLI wrote so far (the log file, or stdout and stderr). */
  output: () => string
  exit: Promise<number | null>
}

/**
 * Starts the CLI with stdout and stderr on one file descriptor opened on `log`, as a shell
 * redirection would (or, with `stderrOnly`, only stderr there and stdout on a pipe).
 */
async function startCli(args: string[], cwd: string, log: string, stderrOnly = false): Promise<Running> {
  mkdirSync(join(log, '..'), { recursive: true })
  const fd = openSync(log, 'a')
  const child = spawn(NODE, [CLI, ...args], { cwd, stdio: ['ignore', stderrOnly ? 'pipe' : fd, fd] })
  closeSync(fd)
  children.push(child)
  let stdout = ''
  child.stdout?.on('data', (chunk) => (stdout += chunk))
  const output = () => (existsSync(log) ? readFileSync(log, 'utf8') : '') + stdout
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let url: string | undefined
  await until(() => {
    if (child.exitCode !== null) throw new Error(`the CLI exited with ${child.exitCode}: ${output()}`)
    const match = /mockyard listening on http:\/\/[^:]+:(\d+)/.exec(output())
    if (match) url = `http://127.0.0.1:${match[1]}`
    return url !== undefined
  }, 20_000, 'the listening line')
  return { child, url: url!, output, exit }
}

async function until(check: () => boolean | Promise<boolean>, timeout = 10_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeout
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function body(url: string): Promise<string> {
  const res = await fetch(url)
  return res.status === 200 ? await res.text() : `status ${res.status}`
}

/** Waits until the file stops growing for a while (it never does if mockyard reacts to its own log). */
async function settles(path: string): Promise<number> {
  let size = -1
  let stableSince = Date.now()
  await until(() => {
    const now = statSync(path).size
    if (now !== size) {
      size = now
      stableSince = Date.now()
    }
    return Date.now() - stableSince > 1000
  }, 20_000, `${path} to stop growing`)
  return size
}

/** The number of inotify watches the process holds, or undefined where /proc is absent. */
function inotifyWatches(pid: number): number | undefined {
  if (!existsSync(`/proc/${pid}/fd`)) return undefined
  let count = 0
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`)
    } catch {
      continue
    }
    if (!target.includes('inotify')) continue
    count += readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').split('\n').filter((line) => line.startsWith('inotify wd:')).length
  }
  return count
}

async function stopWith(running: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  running.child.kill(signal)
  return running.exit
}

describe('the working folder is never watched', { timeout: 60_000 }, () => {
  it('--routes in an app folder with a big node_modules and the log inside it: no reaction to the log, few watches, SIGTERM exits 0', async () => {
    const app = tempApp()
    fillNodeModules(app, 5000)
    appWithRoutes(app, { 'v1/users': { file: 'users.json' } }, { 'users.json': '{"users":1}' })
    const log = join(app, 'out.log')
    const running = await startCli(['--routes', 'project/config/routes.json', '--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, log)
    expect(await body(`${running.url}/v1/users`)).toBe('{"users":1}')
    await until(() => running.output().includes('GET /v1/users 200'), 10_000, 'the request log line')
    const size = await settles(log)
    expect(await body(`${running.url}/v1/users`)).toBe('{"users":1}')
    await until(() => statSync(log).size > size, 10_000, 'the second request line')
    await settles(log)
    const watches = inotifyWatches(running.child.pid!)
    if (watches !== undefined) expect(watches).toBeLessThanOrEqual(6)
    // A file in the working folder that no route names: nothing.
    const before = running.output()
    writeFileSync(join(app, 'notes.txt'), 'hello')
    writeFileSync(join(app, 'node_modules', 'pkg-1', 'lib-1', 'file-1.js'), 'changed')
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(running.output()).toBe(before)
    expect(await stopWith(running)).toBe(0)
  })

  it('--plugin in an app folder: the plugin data folder is watched, not the working folder', async () => {
    const app = tempApp()
    fillNodeModules(app, 2000)
    const plugin = join(app, 'node_modules', 'my-mock-data')
    write(join(plugin, 'package.json'), JSON.stringify({ name: 'my-mock-data', type: 'module', main: 'index.js' }))
    write(join(plugin, 'index.js'), "export default { routes: './routes.json' }\n")
    write(join(plugin, 'routes.json'), JSON.stringify({ 'v1/plugin': { file: 'plugin.json' } }))
    write(join(plugin, 'data', 'plugin.json'), '{"v":1}')
    const log = join(app, 'out.log')
    const running = await startCli(['--plugin', 'my-mock-data', '--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, log)
    expect(await body(`${running.url}/v1/plugin`)).toBe('{"v":1}')
    await settles(log)
    const watches = inotifyWatches(running.child.pid!)
    if (watches !== undefined) expect(watches).toBeLessThanOrEqual(6)
    writeFileSync(join(plugin, 'data', 'plugin.json'), '{"v":2}')
    await until(async () => (await body(`${running.url}/v1/plugin`)) === '{"v":2}', 10_000, 'the edited plugin data file')
    expect(await stopWith(running)).toBe(0)
  })

  it('stderr redirected into the data folder (2> data/mock.log): no reaction to it', async () => {
    const app = tempApp()
    fillNodeModules(app, 1000)
    const { routes, data } = appWithRoutes(app, { 'v1/users': { file: 'users.json' } }, { 'users.json': '{"users":1}' })
    const log = join(data, 'mock.log')
    const running = await startCli(['--routes', routes, '--data', data, '--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, log, true)
    expect(await body(`${running.url}/v1/users`)).toBe('{"users":1}')
    await until(() => running.output().includes('GET /v1/users 200'), 10_000, 'the request log line')
    await settles(log)
    expect(running.output()).not.toContain('mock.log')
    const watches = inotifyWatches(running.child.pid!)
    if (watches !== undefined) expect(watches).toBeLessThanOrEqual(6)
    expect(await stopWith(running, 'SIGINT')).toBe(0)
  })
})

describe('every way of saving is seen, every time', { timeout: 60_000 }, () => {
  async function setup(routes: Record<string, unknown> = { 'v1/a': { file: 'a.json' } }, files: Record<string, string> = { 'a.json': '{"v":1}' }) {
    const app = tempApp()
    const paths = appWithRoutes(app, routes, files)
    const running = await startCli(['--routes', paths.routes, '--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    return { app, ...paths, running }
  }

  /** Saves like an editor or `sed -i`: a temporary file renamed over the original. */
  function saveByRename(path: string, text: string): void {
    const temp = `${path}.tmp-${Math.random().toString(36).slice(2)}`
    writeFileSync(temp, text)
    renameSync(temp, path)
  }

  it('a data file saved by rename, then edited again and again (in place and by rename)', async () => {
    const { data, running } = await setup()
    const a = `${running.url}/v1/a`
    expect(await body(a)).toBe('{"v":1}')
    saveByRename(join(data, 'a.json'), '{"v":2}')
    await until(async () => (await body(a)) === '{"v":2}', 10_000, 'the first save')
    writeFileSync(join(data, 'a.json'), '{"v":3}')
    await until(async () => (await body(a)) === '{"v":3}', 10_000, 'the second save (in place)')
    saveByRename(join(data, 'a.json'), '{"v":4}')
    await until(async () => (await body(a)) === '{"v":4}', 10_000, 'the third save (by rename)')
    writeFileSync(join(data, 'a.json'), '{"v":5}')
    await until(async () => (await body(a)) === '{"v":5}', 10_000, 'the fourth save (in place)')
    expect(await stopWith(running)).toBe(0)
  })

  it('a data file deleted and created again', async () => {
    const { data, running } = await setup()
    const a = `${running.url}/v1/a`
    expect(await body(a)).toBe('{"v":1}')
    unlinkSync(join(data, 'a.json'))
    await until(async () => (await body(a)) === 'status 404', 10_000, 'the deleted file answering 404')
    writeFileSync(join(data, 'a.json'), '{"v":2}')
    await until(async () => (await body(a)) === '{"v":2}', 10_000, 'the re-created file')
    unlinkSync(join(data, 'a.json'))
    writeFileSync(join(data, 'a.json'), '{"v":3}')
    await until(async () => (await body(a)) === '{"v":3}', 10_000, 'the file deleted and re-created at once')
    expect(await stopWith(running)).toBe(0)
  })

  it('a routes file and a data file that are symlinks: edits to their targets are seen, and so is a link pointed elsewhere', async () => {
    const app = tempApp()
    const mocks = join(app, 'mocks')
    write(join(mocks, 'routes.dev.json'), JSON.stringify({ 'v1/a': { file: 'a.json' } }))
    symlinkSync('routes.dev.json', join(mocks, 'routes.json'))
    write(join(mocks, 'data', 'real-a.json'), '{"v":1}')
    symlinkSync('real-a.json', join(mocks, 'data', 'a.json'))
    const running = await startCli(['--routes', join(mocks, 'routes.json'), '--data', join(mocks, 'data'), '--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    const a = `${running.url}/v1/a`
    expect(await body(a)).toBe('{"v":1}')
    // The target edited in place (what an editor opening the link's target does).
    writeFileSync(join(mocks, 'data', 'real-a.json'), '{"v":2}')
    await until(async () => (await body(a)) === '{"v":2}', 10_000, 'the edit of the data file behind the link')
    writeFileSync(join(mocks, 'routes.dev.json'), JSON.stringify({ 'v1/a': { file: 'a.json' }, 'v1/b': { file: 'a.json' } }))
    await until(async () => (await body(`${running.url}/v1/b`)) === '{"v":2}', 10_000, 'the edit of the routes file behind the link')
    // The links pointed at other files (ln -sfn), then those files edited.
    write(join(mocks, 'data', 'other-a.json'), '{"v":3}')
    renameSync(join(mocks, 'data', 'a.json'), join(mocks, 'data', 'old-link'))
    symlinkSync('other-a.json', join(mocks, 'data', 'a.json'))
    await until(async () => (await body(a)) === '{"v":3}', 10_000, 'the data link pointed elsewhere')
    writeFileSync(join(mocks, 'data', 'other-a.json'), '{"v":4}')
    await until(async () => (await body(a)) === '{"v":4}', 10_000, 'the edit of the new target')
    write(join(mocks, 'routes.prod.json'), JSON.stringify({ 'v1/a': { file: 'a.json' }, 'v1/c': { file: 'a.json' } }))
    unlinkSync(join(mocks, 'routes.json'))
    symlinkSync('routes.prod.json', join(mocks, 'routes.json'))
    await until(async () => (await body(`${running.url}/v1/c`)) === '{"v":4}', 10_000, 'the routes link pointed elsewhere')
    writeFileSync(join(mocks, 'routes.prod.json'), JSON.stringify({ 'v1/a': { file: 'a.json' }, 'v1/d': { file: 'a.json' } }))
    await until(async () => (await body(`${running.url}/v1/d`)) === '{"v":4}', 10_000, 'the edit of the new routes target')
    expect(await stopWith(running)).toBe(0)
  })

  it('the whole data folder removed and created again, twice', async () => {
    const { data, running } = await setup()
    const a = `${running.url}/v1/a`
    expect(await body(a)).toBe('{"v":1}')
    for (const v of [2, 3]) {
      rmSync(data, { recursive: true })
      mkdirSync(data)
      writeFileSync(join(data, 'a.json'), `{"v":${v}}`)
      await until(async () => (await body(a)) === `{"v":${v}}`, 10_000, `the re-created data folder (${v})`)
    }
    expect(await stopWith(running)).toBe(0)
  })

  it('routes.json saved by rename (again and again), deleted and re-created; the watched data files follow the routes', async () => {
    const { routes, data, running } = await setup({ 'v1/a': { file: 'a.json' } }, { 'a.json': '{"v":"a"}', 'b.json': '{"v":"b1"}' })
    const a = `${running.url}/v1/a`
    expect(await body(a)).toBe('{"v":"a"}')
    // b.json is named by no route: changing it does nothing, not even a log line.
    await until(() => running.output().includes('GET /v1/a 200'), 10_000, 'the request log line')
    const before = running.output()
    writeFileSync(join(data, 'b.json'), '{"v":"b2"}')
    writeFileSync(join(data, 'unrelated.txt'), 'x')
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(running.output()).toBe(before)

    saveByRename(routes, JSON.stringify({ 'v1/a': { file: 'b.json' } }))
    await until(async () => (await body(a)) === '{"v":"b2"}', 10_000, 'the routes saved by rename')
    // Now b.json is named: its edits are seen.
    writeFileSync(join(data, 'b.json'), '{"v":"b3"}')
    await until(async () => (await body(a)) === '{"v":"b3"}', 10_000, 'the newly named data file edited')
    saveByRename(routes, JSON.stringify({ 'v1/a': { file: 'a.json' }, 'v1/b': { file: 'b.json' } }))
    await until(async () => (await body(`${running.url}/v1/b`)) === '{"v":"b3"}', 10_000, 'the second rename save of routes.json')
    writeFileSync(routes, JSON.stringify({ 'v1/c': { file: 'a.json' } }))
    await until(async () => (await body(`${running.url}/v1/c`)) === '{"v":"a"}', 10_000, 'the third save (in place)')

    unlinkSync(routes)
    await until(() => running.output().includes('keeping the last good routes'), 10_000, 'the error for the deleted routes file')
    expect(await body(`${running.url}/v1/c`)).toBe('{"v":"a"}')
    writeFileSync(routes, JSON.stringify({ 'v1/d': { file: 'b.json' } }))
    await until(async () => (await body(`${running.url}/v1/d`)) === '{"v":"b3"}', 10_000, 'the re-created routes file')
    expect(await stopWith(running)).toBe(0)
  })

  it('a broken routes file keeps the last good table and logs the error once per change', async () => {
    const { routes, running } = await setup()
    const a = `${running.url}/v1/a`
    expect(await body(a)).toBe('{"v":1}')
    writeFileSync(routes, '{ "v1/a": ')
    await until(() => running.output().includes('keeping the last good routes'), 10_000, 'the error')
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(running.output().split('keeping the last good routes').length - 1).toBe(1)
    expect(await body(a)).toBe('{"v":1}')
    writeFileSync(routes, JSON.stringify({ 'v1/a': { file: 'a.json', status: 201 } }))
    await until(async () => (await fetch(a)).status === 201, 10_000, 'the fixed routes')
    expect(await stopWith(running)).toBe(0)
  })

  it('a config file change reloads its routes and data; a pluginContext change is logged as needing a restart', async () => {
    const app = tempApp()
    write(join(app, 'mocks', 'routes.json'), JSON.stringify({ 'v1/a': { file: 'a.json' } }))
    write(join(app, 'mocks', 'other.json'), JSON.stringify({ 'v1/other': { file: 'a.json' } }))
    write(join(app, 'mocks', 'data', 'a.json'), '{"v":1}')
    write(join(app, 'mocks', 'config.json'), JSON.stringify({ routes: 'routes.json', data: 'data' }))
    const running = await startCli(['--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    expect(await body(`${running.url}/v1/a`)).toBe('{"v":1}')
    writeFileSync(join(app, 'mocks', 'config.json'), JSON.stringify({ routes: 'other.json', data: 'data', pluginContext: 'http://example.test' }))
    await until(async () => (await body(`${running.url}/v1/other`)) === '{"v":1}', 10_000, 'the routes of the changed config')
    expect(await body(`${running.url}/v1/a`)).toBe('status 404')
    expect(running.output()).toMatch(/config file changed pluginContext.*Restart mockyard/)
    // Changed back to what is running: nothing to restart for.
    writeFileSync(join(app, 'mocks', 'config.json'), JSON.stringify({ routes: 'routes.json', data: 'data' }))
    await until(async () => (await body(`${running.url}/v1/a`)) === '{"v":1}', 10_000, 'the routes of the config changed back')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(running.output().split('Restart mockyard').length - 1).toBe(1)
    expect(await stopWith(running)).toBe(0)
  })
  it('a config.js edited: imported afresh; a broken edit keeps the last good table and logs once', async () => {
    const app = tempApp()
    write(join(app, 'mocks', 'routes.json'), JSON.stringify({ 'v1/a': { file: 'a.json' } }))
    write(join(app, 'mocks', 'other.json'), JSON.stringify({ 'v1/other': { file: 'a.json' } }))
    write(join(app, 'mocks', 'data', 'a.json'), '{"v":1}')
    const config = join(app, 'mocks', 'config.js')
    write(config, "export default { routes: './routes.json', data: './data' }\n")
    const running = await startCli(['--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    expect(await body(`${running.url}/v1/a`)).toBe('{"v":1}')
    writeFileSync(config, "export default { routes: './other.json', data: './data' }\n")
    await until(async () => (await body(`${running.url}/v1/other`)) === '{"v":1}', 10_000, 'the routes of the edited config.js')
    writeFileSync(config, 'export default { routes: \n')
    await until(() => running.output().includes('keeping the last good routes'), 10_000, 'the error for the broken config.js')
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(running.output().split('keeping the last good routes').length - 1).toBe(1)
    expect(await body(`${running.url}/v1/other`)).toBe('{"v":1}')
    saveByRename(config, "export default { routes: './routes.json', data: './data' }\n")
    await until(async () => (await body(`${running.url}/v1/a`)) === '{"v":1}', 10_000, 'the fixed config.js')
    expect(await stopWith(running)).toBe(0)
  })
})

describe('signals', { timeout: 60_000 }, () => {
  it('SIGTERM lets ten requests in flight on a 300 ms route finish with complete answers, then exits 0', async () => {
    const app = tempApp()
    const big = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ i, name: `item ${i}` })) })
    const { routes } = appWithRoutes(app, { 'v1/slow': { file: 'slow.json', latency: 300 }, 'v1/fast': { file: 'fast.json', latency: 0 } }, { 'slow.json': big, 'fast.json': '{}' })
    const running = await startCli(['--routes', routes, '--port', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    const sent: Array<Promise<void>> = []
    const requests = Array.from({ length: 10 }, () => {
      let written!: () => void
      sent.push(new Promise<void>((resolve) => (written = resolve)))
      return new Promise<{ status: number; text: string; complete: boolean }>((resolve, reject) => {
        const req = httpRequest(`${running.url}/v1/slow`, { agent: false }, (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => (text += chunk))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text, complete: res.complete }))
          res.on('error', reject)
        })
        req.on('finish', () => written())
        req.on('error', reject)
        req.end()
      })
    })
    // Every request written; a request on a fast route answered after them, so the server has read them.
    await Promise.all(sent)
    expect(await body(`${running.url}/v1/fast`)).toBe('{}')
    running.child.kill('SIGTERM')
    const answers = await Promise.all(requests)
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    for (const answer of answers) {
      expect(answer.complete).toBe(true)
      expect(answer.text).toBe(big)
    }
    expect(await running.exit).toBe(0)
  })

  it('exits 0 at once when nothing is in flight, idle keep-alive connections included', async () => {
    const app = tempApp()
    const { routes } = appWithRoutes(app, { 'v1/a': { file: 'a.json' } }, { 'a.json': '{}' })
    const running = await startCli(['--routes', routes, '--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    // fetch keeps the connection open after this answer.
    expect(await body(`${running.url}/v1/a`)).toBe('{}')
    expect(await stopWith(running, 'SIGINT')).toBe(0)
  })

  it('a connection whose request has not fully arrived (a stalled head) does not hold the stop: closed at once, while the request in flight is answered', async () => {
    const app = tempApp()
    const { routes } = appWithRoutes(app, { 'v1/slow': { file: 'a.json', latency: 1500 }, 'v1/fast': { file: 'a.json', latency: 0 } }, { 'a.json': '{"a":1}' })
    const running = await startCli(['--routes', routes, '--port', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    const port = Number(new URL(running.url).port)
    const order: string[] = []
    const open = (name: string, bytes: string) => {
      const socket = connect(port, '127.0.0.1')
      let text = ''
      socket.on('data', (chunk) => (text += chunk.toString('latin1')))
      socket.on('error', () => {})
      const closed = new Promise<string>((resolve) => socket.on('close', () => (order.push(name), resolve(text))))
      const written = new Promise<void>((resolve) => socket.write(bytes, () => resolve()))
      return { closed, written }
    }
    const stalled = open('stalled', 'GET /v1/fast HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ')
    const slow = open('slow', 'GET /v1/slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
    await Promise.all([stalled.written, slow.written])
    expect(await body(`${running.url}/v1/fast`)).toBe('{"a":1}')
    running.child.kill('SIGTERM')
    expect(await stalled.closed).toBe('')
    const answer = await slow.closed
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    expect(answer.endsWith('\r\n\r\n{"a":1}')).toBe(true)
    expect(order).toEqual(['stalled', 'slow'])
    expect(await running.exit).toBe(0)
  })

  it('a second signal exits at once, without waiting for requests in flight', async () => {
    const app = tempApp()
    const { routes } = appWithRoutes(app, { 'v1/slow': { file: 'a.json', latency: 8000 } }, { 'a.json': '{}' })
    const running = await startCli(['--routes', routes, '--port', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    const request = fetch(`${running.url}/v1/slow`).then(
      (res) => res.status,
      () => 'failed',
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    running.child.kill('SIGTERM')
    await until(() => running.output().includes('SIGTERM: stopping'), 10_000, 'the first signal being handled')
    running.child.kill('SIGTERM')
    const code = await running.exit
    expect(code).not.toBe(0)
    expect(code).not.toBe(null)
    // The request was cut off rather than answered after its 8 s latency.
    expect(await request).toBe('failed')
  })
})

describe('symlinks in the data folder', () => {
  it('one leading out of the data folder is a load warning and a 404; one inside keeps working', async () => {
    const app = tempApp()
    write(join(app, 'secret.txt'), 'top secret')
    const { routes, data } = appWithRoutes(
      app,
      { 'v1/leak': { file: 'leak.txt' }, 'v1/inner': { file: 'inner.json' }, 'v1/linked-dir': { file: 'linked/x.json' } },
      { 'sub/real.json': '{"real":true}', 'sub/x.json': '{"x":true}' },
    )
    symlinkSync(join(app, 'secret.txt'), join(data, 'leak.txt'))
    symlinkSync(join(data, 'sub', 'real.json'), join(data, 'inner.json'))
    symlinkSync('sub', join(data, 'linked'))
    const running = await startCli(['--routes', routes, '--port', '0', '--latency', '0', '--host', '127.0.0.1'], app, join(app, 'out.log'))
    expect(running.output()).toMatch(/the data file "leak\.txt" is a symlink leading outside/)
    const leak = await fetch(`${running.url}/v1/leak`)
    expect(leak.status).toBe(404)
    expect(await leak.text()).not.toContain('top secret')
    expect(await body(`${running.url}/v1/inner`)).toBe('{"real":true}')
    expect(await body(`${running.url}/v1/linked-dir`)).toBe('{"x":true}')
    expect(await stopWith(running)).toBe(0)
  })
})
