/**
 * docs/behaviour.md, "Live reload and the working folder" and "Security" (symlinks), through the
 * library surfaces: what the middleware and `folderFiles` watch, and what they serve through
 * symlinks. The CLI cases (log files, node_modules, signals) are in test/cli/watch.test.ts.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createMiddleware, startMockServer } from 'mockyard/node'
import { captureLogs, removeTempDirs, tempDir, until, writeMocks } from '../support/routes.js'

afterEach(() => removeTempDirs())

const decoder = new TextDecoder()

describe('live reload follows the data files the routes name, by every way of saving', () => {
  it('sees saves by rename again and again, a delete and re-create, and ignores files no route names', async () => {
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, { 'a.json': '1', 'other.txt': 'x' })
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, data: mocks.data, watch: true, logProvider: logs.logProvider })
    try {
      const res = () => fetch(`${server.url}/v1/a`)
      const text = async () => (await res()).text()
      expect(await text()).toBe('1')
      for (const v of ['2', '3', '4']) {
        writeFileSync(join(mocks.data, 'a.json.tmp'), v)
        renameSync(join(mocks.data, 'a.json.tmp'), join(mocks.data, 'a.json'))
        await until(async () => (await text()) === v, 5000, `save by rename ${v}`)
      }
      unlinkSync(join(mocks.data, 'a.json'))
      await until(async () => (await res()).status === 404, 5000, 'the deleted file')
      writeFileSync(join(mocks.data, 'a.json'), '5')
      await until(async () => (await text()) === '5', 5000, 'the re-created file')
      writeFileSync(join(mocks.data, 'other.txt'), 'y')
      writeFileSync(join(mocks.data, 'log.txt'), 'z')
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Each reload names the file that changed: a.json, and never a file no route names.
      expect(logs.info.some((line) => line.includes('changed') && line.includes('a.json'))).toBe(true)
      expect(logs.info.filter((line) => line.includes('changed') && !line.includes('a.json'))).toEqual([])
    } finally {
      await server.stop()
    }
  })
})

describe('live reload follows folders moved away and swapped in whole', () => {
  it('a data folder moved away answers 404 until it is back; a mocks folder swapped for another is served and followed', async () => {
    const root = tempDir()
    const dir = join(root, 'mocks')
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, { 'a.json': '"old"' }, dir)
    const server = await startMockServer({ routes: mocks.routes, data: mocks.data, watch: true, logProvider: captureLogs().logProvider })
    try {
      const res = () => fetch(`${server.url}/v1/a`)
      const text = async () => (await res()).text()
      expect(await text()).toBe('"old"')
      renameSync(mocks.data, `${mocks.data}.bak`)
      await until(async () => (await res()).status === 404, 5000, 'the data folder moved away')
      renameSync(`${mocks.data}.bak`, mocks.data)
      await until(async () => (await text()) === '"old"', 5000, 'the data folder back')
      // As a deploy script or a tool that rebuilds the folder does: the new one moved in whole.
      writeMocks({ 'v1/a': { file: 'a.json' } }, { 'a.json': '"new"' }, join(root, 'mocks.new'))
      renameSync(dir, join(root, 'mocks.old'))
      renameSync(join(root, 'mocks.new'), dir)
      await until(async () => (await text()) === '"new"', 5000, 'the swapped-in folder')
      writeFileSync(join(dir, 'data', 'a.json'), '"edited"')
      await until(async () => (await text()) === '"edited"', 5000, 'an edit in the swapped-in folder')
      // The old folder is not followed any more.
      writeFileSync(join(root, 'mocks.old', 'data', 'a.json'), '"stale"')
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(await text()).toBe('"edited"')
    } finally {
      await server.stop()
    }
  })
})

describe('the log of many data files changed at once', () => {
  it('a folder removed (rm -rf, git checkout): one line for the files gone, naming a few, not a line per file', async () => {
    const names = Array.from({ length: 8 }, (_, index) => `f${index}.json`)
    const mocks = writeMocks(Object.fromEntries(names.map((name) => [`v1/${name.slice(0, -5)}`, { file: name }])), Object.fromEntries(names.map((name) => [name, '{}'])))
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, data: mocks.data, watch: true, logProvider: logs.logProvider })
    try {
      // Read once, so that each file is one the server serves from memory.
      for (const name of names) expect((await fetch(`${server.url}/v1/${name.slice(0, -5)}`)).status).toBe(200)
      rmSync(mocks.data, { recursive: true })
      await until(async () => (await fetch(`${server.url}/v1/f0`)).status === 404, 5000, 'the data folder removed')
      await new Promise((resolve) => setTimeout(resolve, 300))
      const lines = logs.info.filter((line) => line.includes('data file'))
      expect(lines.length).toBeLessThanOrEqual(2)
      expect(lines.join('\n')).toMatch(/\[mockyard\] (8 data files removed, they answer 404 until they are back: .*f\d\.json, .*f\d\.json, .*f\d\.json and 5 more|\d data files removed)/)
      expect(lines.join('\n')).not.toContain('served fresh')
    } finally {
      await server.stop()
    }
  })
})

describe('the middleware with inline routes does not watch the working folder', () => {
  it('a data folder of inline routes: only the named files are followed', async () => {
    const dir = tempDir()
    mkdirSync(join(dir, 'data'))
    writeFileSync(join(dir, 'data', 'a.json'), '{"v":1}')
    const logs = captureLogs()
    const middleware = await createMiddleware({ routes: { 'v1/a': { file: 'a.json' } }, data: join(dir, 'data'), latency: 0, logProvider: logs.logProvider })
    try {
      const server = await import('node:http').then(({ createServer }) => createServer((req, res) => middleware(req, res, () => res.writeHead(404).end())))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/a`
      try {
        expect(await (await fetch(url)).text()).toBe('{"v":1}')
        writeFileSync(join(dir, 'data', 'unrelated.log'), 'line\n')
        writeFileSync(join(dir, 'data', 'a.json'), '{"v":2}')
        await until(async () => (await (await fetch(url)).text()) === '{"v":2}', 5000, 'the edited inline data file')
        expect(logs.info.filter((line) => line.includes('changed'))).toEqual([expect.stringContaining('a.json')])
      } finally {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      }
    } finally {
      await middleware.close()
    }
  })
})

describe('Symlinks: a data file is served only when its real path is inside the data folder', () => {
  it('a symlink out is a load warning and a 404; links inside the folder work', async () => {
    const outside = tempDir()
    writeFileSync(join(outside, 'secret.json'), '{"secret":true}')
    const mocks = writeMocks({ 'v1/leak': { file: 'leak.json' }, 'v1/inner': { file: 'inner.json' } }, { 'real.json': '{"real":true}' })
    symlinkSync(join(outside, 'secret.json'), join(mocks.data, 'leak.json'))
    symlinkSync(join(mocks.data, 'real.json'), join(mocks.data, 'inner.json'))
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, logProvider: logs.logProvider })
    try {
      expect(logs.warn.join('\n')).toMatch(/routes\.json#\/v1~1leak\/file: the data file "leak\.json" is a symlink leading outside/)
      const leak = await fetch(`${server.url}/v1/leak`)
      expect(leak.status).toBe(404)
      const text = await leak.text()
      expect(text).not.toContain('secret')
      // The 404 and the logged error say why, not that the file is missing.
      expect((JSON.parse(text) as { message: string }).message).toBe(
        `[mockyard] the file "leak.json" of route v1/leak (GET default) is a symlink leading outside ${mocks.data}, and is not served. Copy the file into the data folder, or point the symlink at a file inside it`,
      )
      expect(logs.error.join('\n')).toContain('GET /v1/leak: the data file "leak.json" of route v1/leak (default) is a symlink leading outside')
      expect(await (await fetch(`${server.url}/v1/inner`)).json()).toEqual({ real: true })
    } finally {
      await server.stop()
    }
  })

  it('a symlink made to lead out while running answers 404 once the file is read again', async () => {
    const outside = tempDir()
    writeFileSync(join(outside, 'secret.json'), '{"secret":true}')
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, { 'a.json': '{"ok":true}' })
    const server = await startMockServer({ routes: mocks.routes, watch: true, logProvider: captureLogs().logProvider })
    try {
      expect((await fetch(`${server.url}/v1/a`)).status).toBe(200)
      symlinkSync(join(outside, 'secret.json'), join(mocks.data, 'a.json.tmp'))
      renameSync(join(mocks.data, 'a.json.tmp'), join(mocks.data, 'a.json'))
      await until(async () => (await fetch(`${server.url}/v1/a`)).status === 404, 5000, 'the swapped-in symlink answering 404')
    } finally {
      await server.stop()
    }
  })
})
