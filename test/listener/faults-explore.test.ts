import http from 'node:http'
import { it } from 'vitest'
import { startMockServer } from 'mockyard/node'
import { writeMocks } from '../support/routes.js'

it('explore', async () => {
  const mocks = writeMocks({ 'v1/reset': { fault: 'reset' }, 'v1/close': { fault: 'close' }, 'v1/cut': { file: 'r.json', fault: 'truncate' } }, { 'r.json': JSON.stringify({ a: 'x'.repeat(100) }) })
  const server = await startMockServer({ routes: mocks.routes })
  for (const p of ['reset', 'close', 'cut']) {
    try {
      const r = await fetch(`${server.url}/v1/${p}`)
      console.log(p, 'fetch status', r.status, r.headers.get('content-length'))
      await r.text()
    } catch (e: any) {
      console.log(p, 'fetch', e.name, e.message, e.cause?.name, e.cause?.message, e.cause?.code)
    }
    await new Promise<void>((resolve) => {
      http.get(`${server.url}/v1/${p}`, (res) => {
        console.log(p, 'http status', res.statusCode)
        res.on('data', () => {})
        res.on('aborted', () => console.log(p, 'http aborted'))
        res.on('error', (e: any) => { console.log(p, 'http res error', e.message, e.code); resolve() })
        res.on('end', () => { console.log(p, 'http end complete=', res.complete); resolve() })
      }).on('error', (e: any) => { console.log(p, 'http error', e.message, e.code); resolve() })
    })
  }
  console.log(server.requests().map((r) => [r.url, r.status, r.fault]))
  await server.stop()
})
