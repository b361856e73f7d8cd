/**
 * The Vite plugin hands the browser each source with the URL of its own data folder, serves the
 * files under that URL, and (with `build: true`) emits them there: two routes files with two data
 * folders each get theirs, whatever the order.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import type { Plugin } from 'vite'
import mockyard, { type SerializedConfig } from 'mockyard/vite'
import { removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void

interface Hooks {
  configResolved(config: unknown): void
  configureServer(server: unknown): Promise<void>
  load(id: string): Promise<string | undefined>
  generateBundle(this: unknown): Promise<void>
}

/** GET `url` through the plugin's middleware: status and body, or `next` when it passes. */
function get(middleware: Middleware, url: string): Promise<{ status: number; body: string } | 'next'> {
  return new Promise((resolve) => {
    let status = 0
    const res = {
      writeHead: (code: number) => (status = code),
      end: (body?: string | Uint8Array) => resolve({ status, body: body === undefined ? '' : Buffer.from(body).toString('utf8') }),
    } as unknown as ServerResponse
    middleware({ method: 'GET', url } as IncomingMessage, res, () => resolve('next'))
  })
}

describe('the Vite plugin: each source carries the URL of its data folder', () => {
  const first = writeMocks({ 'v1/a': { file: 'same.json' } }, { 'same.json': '{"from":"first"}' })
  const second = writeMocks({ 'v1/b': { file: 'same.json' } }, { 'same.json': '{"from":"second"}' })

  async function start() {
    const plugin = mockyard({ routes: [first.routes, second.routes], watch: false }) as unknown as Plugin & Hooks
    const silent = { info: () => {}, warn: () => {}, error: () => {} }
    // The root resolves msw (its worker script is emitted too): this repository's.
    plugin.configResolved({ root: process.cwd(), base: '/app/', logger: silent })
    let middleware: Middleware | undefined
    await plugin.configureServer({ middlewares: { use: (m: Middleware) => (middleware = m) } })
    const code = (await plugin.load('\0virtual:mockyard'))!
    const config = JSON.parse(code.slice(code.indexOf('export default ') + 'export default '.length)) as SerializedConfig
    return { plugin, middleware: middleware!, config }
  }

  it('serves each data file under its source dataUrl, and nothing outside the folders', async () => {
    const { middleware, config } = await start()
    const urls = config.sources.map((source) => source.dataUrl!)
    expect(urls).toHaveLength(2)
    expect(new Set(urls).size).toBe(2)
    for (const url of urls) expect(url.startsWith('/app/@mockyard/data/')).toBe(true)
    expect(await get(middleware, `${urls[0]}same.json`)).toEqual({ status: 200, body: '{"from":"first"}' })
    expect(await get(middleware, `${urls[1]}same.json`)).toEqual({ status: 200, body: '{"from":"second"}' })
    expect(await get(middleware, `${urls[1]}missing.json`)).toMatchObject({ status: 404 })
    expect(await get(middleware, '/app/@mockyard/data/7/same.json')).toMatchObject({ status: 404 })
    expect(await get(middleware, '/app/@mockyard/data/same.json')).toMatchObject({ status: 404 })
  })

  it('with build: true, emits each source data files under its dataUrl', async () => {
    const { plugin, config } = await start()
    const emitted = new Map<string, string>()
    await plugin.generateBundle.call({
      emitFile: (file: { fileName: string; source: string | Uint8Array }) => emitted.set(file.fileName, Buffer.from(file.source).toString('utf8')),
      error: (message: string) => {
        throw new Error(message)
      },
    })
    for (const [index, source] of config.sources.entries()) {
      const name = `${source.dataUrl!.replace(/^\/app\//, '')}same.json`
      expect(emitted.get(name)).toBe(index === 0 ? '{"from":"first"}' : '{"from":"second"}')
    }
  })
})
