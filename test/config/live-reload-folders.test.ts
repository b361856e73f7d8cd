/**
 * docs/behaviour.md, "Live reload and the working folder": folders in use that are symlinks,
 * removed and re-created in steps, files that keep changing and files still being written.
 * Real folders, real symlinks, real OS watches.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startMockServer } from 'mockyard/node'
import { watchFiles } from '../../src/config/watcher.js'
import { captureLogs, removeTempDirs, tempDir, until, writeMocks } from '../support/routes.js'

afterEach(() => removeTempDirs())

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a symlinked data folder', () => {
  it('pointed elsewhere is served from its new target, and replaced by a real folder from that one', async () => {
    const dir = tempDir()
    writeMocks({ 'v1/a': { file: 'a.json' } }, {}, dir)
    rmSync(join(dir, 'data'), { recursive: true })
    for (const version of ['v1', 'v2']) {
      mkdirSync(join(dir, `data-${version}`))
      writeFileSync(join(dir, `data-${version}`, 'a.json'), `"${version}"`)
    }
    symlinkSync('data-v1', join(dir, 'data'))
    const logs = captureLogs()
    const server = await startMockServer({ routes: join(dir, 'routes.json'), data: join(dir, 'data'), watch: true, logProvider: logs.logProvider })
    try {
      const res = () => fetch(`${server.url}/v1/a`)
      const text = async () => (await res()).text()
      expect(await text()).toBe('"v1"')
      // As `ln -sfn data-v2 data` does: a new link renamed over the old one.
      symlinkSync('data-v2', join(dir, 'data.tmp'))
      renameSync(join(dir, 'data.tmp'), join(dir, 'data'))
      await until(async () => (await text()) === '"v2"', 5000, 'the link pointed at data-v2')
      // An edit in the old target changes nothing (and is no reason to refuse the file).
      writeFileSync(join(dir, 'data-v1', 'a.json'), '"v1 edited"')
      await sleep(300)
      const after = await res()
      expect([after.status, await after.text()]).toEqual([200, '"v2"'])
      writeFileSync(join(dir, 'data-v2', 'a.json'), '"v2 edited"')
      await until(async () => (await text()) === '"v2 edited"', 5000, 'an edit in the new target')
      // The link replaced by a real folder.
      unlinkSync(join(dir, 'data'))
      mkdirSync(join(dir, 'data'))
      writeFileSync(join(dir, 'data', 'a.json'), '"real"')
      await until(async () => (await text()) === '"real"', 5000, 'the real folder in place of the link')
      writeFileSync(join(dir, 'data', 'a.json'), '"real edited"')
      await until(async () => (await text()) === '"real edited"', 5000, 'an edit in the real folder')
      expect(logs.error).toEqual([])
    } finally {
      await server.stop()
    }
  })
})

describe('a nested data folder removed and re-created in steps', () => {
  it('is watched again, whatever order its folders went and came back in', async () => {
    const root = tempDir()
    const data = join(root, 'mocks', 'data')
    const list = join(data, 'users', 'list.json')
    const top = join(data, 'users.json')
    mkdirSync(join(data, 'users'), { recursive: true })
    writeFileSync(list, '1')
    writeFileSync(top, '1')
    const seen: string[] = []
    const files = watchFiles((paths) => seen.push(...paths))
    files.set([list, top])
    try {
      // `users/` goes first (it then waits on `data/`), then `data/` itself, the folder it waits on.
      rmSync(join(data, 'users'), { recursive: true })
      await sleep(150)
      rmSync(data, { recursive: true })
      await sleep(150)
      mkdirSync(data)
      await sleep(150)
      mkdirSync(join(data, 'users'))
      await sleep(150)
      writeFileSync(list, '2')
      await until(() => seen.includes(list), 3000, 'the re-created nested file')
      // And it is watched for good: a later edit is seen too.
      await sleep(300)
      seen.length = 0
      writeFileSync(list, '3')
      await until(() => seen.includes(list), 3000, 'an edit in the re-created nested folder')
    } finally {
      files.close()
    }
  })
})

describe('a file that never stops changing', () => {
  it('does not hold back the changes of the others', async () => {
    const dir = tempDir()
    const busy = join(dir, 'busy.json')
    const quiet = join(dir, 'quiet.json')
    writeFileSync(busy, '0')
    writeFileSync(quiet, '0')
    const seen: string[] = []
    const files = watchFiles((paths) => seen.push(...paths))
    files.set([busy, quiet])
    let count = 0
    const touching = setInterval(() => writeFileSync(busy, String(++count)), 20)
    try {
      await sleep(200)
      writeFileSync(quiet, '1')
      // Well before the busy file stops (it never does while this waits).
      await until(() => seen.includes(quiet), 1500, 'the quiet file, while the busy one keeps changing')
      clearInterval(touching)
      // The busy one once it is still (it is held back while it is being written).
      await until(() => seen.includes(busy), 1500, 'the busy file once still')
    } finally {
      clearInterval(touching)
      files.close()
    }
  })
})

describe('a data file still being written', () => {
  it('is not served half-written: the last good copy is, until the file holds still', async () => {
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, { 'a.json': '["old"]' })
    const server = await startMockServer({ routes: mocks.routes, data: mocks.data, watch: true, logProvider: captureLogs().logProvider })
    try {
      const text = async () => (await fetch(`${server.url}/v1/a`)).text()
      expect(await text()).toBe('["old"]')
      // A generator writing the file slowly: truncated first, then a piece every 30 ms.
      const pieces = ['[', ...Array.from({ length: 25 }, (_, index) => `${index},`), '"done"]']
      const path = join(mocks.data, 'a.json')
      writeFileSync(path, '')
      const answers = new Set<string>()
      let writing = true
      const polling = (async () => {
        while (writing) {
          answers.add(await text())
          await sleep(10)
        }
      })()
      for (const piece of pieces) {
        await sleep(30)
        writeFileSync(path, piece, { flag: 'a' })
      }
      const final = pieces.join('')
      await until(async () => (await text()) === final, 5000, 'the file once written')
      writing = false
      await polling
      expect([...answers].filter((answer) => answer !== '["old"]' && answer !== final)).toEqual([])
    } finally {
      await server.stop()
    }
  })
})

describe('a JSON data file saved broken while running', () => {
  it('is served as written, with a warning naming the file, the line and the column', async () => {
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, { 'a.json': '{"ok":true}' })
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, data: mocks.data, watch: true, logProvider: logs.logProvider })
    try {
      const text = async () => (await fetch(`${server.url}/v1/a`)).text()
      expect(await text()).toBe('{"ok":true}')
      writeFileSync(join(mocks.data, 'a.json'), '{\n  "ok": true,\n}')
      await until(async () => (await text()) === '{\n  "ok": true,\n}', 5000, 'the broken file, served as written')
      await until(() => logs.warn.length > 0, 2000, 'the warning')
      expect(logs.warn).toEqual([
        expect.stringMatching(/^\[mockyard\] .*a\.json#: the data file "a\.json" is not valid JSON at line 3, column 1: .+; it is served as written\. Fix the JSON in the file if clients should parse it\.$/),
      ])
    } finally {
      await server.stop()
    }
  })
})

describe('the log lines of data changes', () => {
  it('name each file by its path relative to the working folder, the way the docs show it', async () => {
    const started = process.cwd()
    const dir = tempDir()
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' }, 'v1/b': { file: 'b.json' } }, { 'a.json': '1', 'b.json': '1' }, join(dir, 'mocks'))
    process.chdir(dir)
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, data: mocks.data, watch: true, logProvider: logs.logProvider })
    try {
      writeFileSync(join(mocks.data, 'a.json'), '2')
      await until(() => logs.info.some((line) => line.includes('a.json')), 5000, 'the change line')
      unlinkSync(join(mocks.data, 'b.json'))
      await until(() => logs.info.some((line) => line.includes('b.json')), 5000, 'the removal line')
      expect(logs.info.filter((line) => line.includes('data file'))).toEqual([
        '[mockyard] data file mocks/data/a.json changed, served fresh from now on',
        '[mockyard] data file mocks/data/b.json removed, it answers 404 until it is back',
      ])
    } finally {
      await server.stop()
      process.chdir(started)
    }
  })
})
