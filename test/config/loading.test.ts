/**
 * docs/behaviour.md, "Route table" (several routes files, plugins) and "Errors and limits" (live
 * reload keeps the last good table), over real files.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { startMockServer } from 'mockyard/node'
import { captureLogs, named, removeTempDirs, tempDir, until, writeMocks, writeTree } from '../support/routes.js'

afterAll(removeTempDirs)

const PLUGIN = fileURLToPath(new URL('../fixtures/rules/plugin/index.js', import.meta.url))

interface Body {
  file: string
  from?: string
}
const getJson = async (url: string, init?: RequestInit) => {
  const res = await fetch(url, init)
  return { status: res.status, body: res.status === 200 ? ((await res.json()) as Body) : undefined }
}

describe('several routes files', () => {
  it('merge deep in order; each file is read from its own data folder', async () => {
    const first = writeMocks(
      {
        'v1/x': { get: 'x-get.json', post: 'x-post.json' },
        'v1/list': { get: [{ params: { k: '1' }, file: 'shared.json' }, { params: { k: '2' }, file: 'shared.json' }] },
        'v1/only-first': { file: 'shared.json' },
      },
      { ...named('x-get.json', 'x-post.json'), 'shared.json': '{"file":"shared.json","from":"first"}' },
    )
    const second = writeMocks(
      {
        'v1/x': { post: 'x-post-2.json' },
        'v1/list': { get: [{ params: { k: '2' }, file: 'shared.json' }] },
        'v1/only-second': { file: 'shared.json' },
      },
      { ...named('x-post-2.json'), 'shared.json': '{"file":"shared.json","from":"second"}' },
    )
    const logs = captureLogs()
    const server = await startMockServer({ routes: [first.routes, second.routes], logProvider: logs.logProvider })
    try {
      expect(logs.warn).toEqual([])
      expect(await getJson(server.url + '/v1/x')).toEqual({ status: 200, body: { file: 'x-get.json' } })
      expect(await getJson(server.url + '/v1/x', { method: 'POST' })).toEqual({ status: 200, body: { file: 'x-post-2.json' } })
      expect((await getJson(server.url + '/v1/only-first')).body?.from).toBe('first')
      expect((await getJson(server.url + '/v1/only-second')).body?.from).toBe('second')
      // Arrays are replaced: the first file's k=1 entry is gone.
      expect((await getJson(server.url + '/v1/list?k=1')).status).toBe(404)
      expect((await getJson(server.url + '/v1/list?k=2')).body?.from).toBe('second')
    } finally {
      await server.stop()
    }
  })
})

describe('plugins', () => {
  it('load first (inline objects and module paths); local routes override them; every file comes from its own folder', async () => {
    const inlineData = tempDir()
    writeTree(inlineData, { 'inline.json': '{"file":"inline.json","from":"inline plugin"}', 'local.json': '{"file":"local.json","from":"inline plugin"}' })
    const local = writeMocks({ 'v1/shared': { get: 'local.json' }, 'v1/overridden': { file: 'local.json' } }, { 'local.json': '{"file":"local.json","from":"local"}' })
    const logs = captureLogs()
    const server = await startMockServer({
      routes: local.routes,
      plugins: [{ routes: { 'v1/inline': { file: 'inline.json' }, 'v1/overridden': { file: 'inline.json' } }, data: inlineData }, PLUGIN],
      logProvider: logs.logProvider,
    })
    try {
      expect(logs.warn).toEqual([])
      expect(await getJson(server.url + '/v1/inline')).toEqual({ status: 200, body: { file: 'inline.json', from: 'inline plugin' } })
      expect(await getJson(server.url + '/v1/plugin')).toEqual({ status: 200, body: { file: 'plugin.json', from: 'module plugin' } })
      // Local routes override plugin routes, method by method.
      expect(await getJson(server.url + '/v1/shared')).toEqual({ status: 200, body: { file: 'local.json', from: 'local' } })
      expect(await getJson(server.url + '/v1/shared', { method: 'POST' })).toEqual({ status: 200, body: { file: 'plugin-post.json', from: 'module plugin' } })
      expect(await getJson(server.url + '/v1/overridden')).toEqual({ status: 200, body: { file: 'local.json', from: 'local' } })
    } finally {
      await server.stop()
    }
  })

  it('a later plugin overrides an earlier one', async () => {
    const inlineData = tempDir()
    writeTree(inlineData, { 'inline.json': '{"file":"inline.json","from":"inline plugin"}' })
    const server = await startMockServer({
      plugins: [{ routes: { 'v1/overridden': { file: 'inline.json' } }, data: inlineData }, PLUGIN],
      logProvider: captureLogs().logProvider,
    })
    try {
      expect((await getJson(server.url + '/v1/overridden')).body).toEqual({ file: 'plugin.json', from: 'module plugin' })
    } finally {
      await server.stop()
    }
  })
})

describe('live reload (watch: true)', () => {
  it('serves edited data and routes files; a broken edit keeps the last good table and logs an error', async () => {
    const mocks = writeMocks({ 'v1/a': { file: 'a.json' } }, { 'a.json': '{"file":"a.json","v":1}', 'b.json': '{"file":"b.json","v":1}' })
    const logs = captureLogs()
    const server = await startMockServer({ routes: mocks.routes, watch: true, logProvider: logs.logProvider })
    const body = async (path: string): Promise<{ file?: string; v?: number; status?: number }> => {
      const res = await fetch(server.url + path)
      return res.status === 200 ? ((await res.json()) as { file: string; v: number }) : { status: res.status }
    }
    try {
      expect(await body('/v1/a')).toEqual({ file: 'a.json', v: 1 })

      // A data file edited in place.
      writeFileSync(join(mocks.data, 'a.json'), '{"file":"a.json","v":2}')
      await until(async () => (await body('/v1/a')).v === 2, 5000, 'the edited data file being served')

      // The routes file edited: another file, and a new route.
      writeFileSync(mocks.routes, JSON.stringify({ 'v1/a': { file: 'b.json' }, 'v1/new': { file: 'a.json' } }))
      await until(async () => (await body('/v1/a')).file === 'b.json', 5000, 'the edited routes being served')
      expect(await body('/v1/new')).toEqual({ file: 'a.json', v: 2 })

      // A broken edit: an error in the log, and the last good table still answers.
      const errorsBefore = logs.error.length
      writeFileSync(mocks.routes, '{ "v1/a": { "file": "a.json" ')
      await until(() => logs.error.length > errorsBefore, 5000, 'an error logged for the broken routes file')
      expect(logs.error.slice(errorsBefore).join('\n')).toContain(mocks.routes)
      expect(await body('/v1/a')).toEqual({ file: 'b.json', v: 1 })
      expect(await body('/v1/new')).toEqual({ file: 'a.json', v: 2 })

      // Fixed again: served again.
      writeFileSync(mocks.routes, JSON.stringify({ 'v1/a': { file: 'a.json' } }))
      await until(async () => (await body('/v1/a')).file === 'a.json', 5000, 'the fixed routes being served')
      expect(await body('/v1/new')).toEqual({ status: 404 })
    } finally {
      await server.stop()
    }
  })
})
