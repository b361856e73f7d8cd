import http from 'node:http'
import axios from 'axios'
import { it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { writeMocks } from '../support/routes.js'

const mocks = writeMocks({ 'v1/reset': { fault: 'reset' }, 'v1/close': { fault: 'close' }, 'v1/cut': { file: 'r.json', fault: 'truncate' }, 'v1/hang': { fault: 'hang' } }, { 'r.json': JSON.stringify({ a: 'x'.repeat(100) }) })
const server = setupMockServer({ routes: mocks.routes })
const url = 'http://api.test'
it('explore', async () => {
  for (const p of ['reset', 'close', 'cut']) {
    try {
      const r = await fetch(`${url}/v1/${p}`)
      console.log(p, 'fetch status', r.status, r.headers.get('content-length'))
      await r.text()
    } catch (e: any) {
      console.log(p, 'fetch', e.name, e.message, e.cause?.name, e.cause?.message, e.cause?.code)
    }
    await new Promise<void>((resolve) => {
      http.get(`${url}/v1/${p}`, (res) => {
        console.log(p, 'http status', res.statusCode, res.headers['content-length'])
        res.on('data', (d) => console.log('data', d.length))
        res.on('aborted', () => console.log(p, 'http aborted'))
        res.on('error', (e: any) => { console.log(p, 'http res error', e.message, e.code); resolve() })
        res.on('end', () => { console.log(p, 'http end complete=', res.complete); resolve() })
      }).on('error', (e: any) => { console.log(p, 'http error', e.message, e.code); resolve() })
    })
    try { await axios.get(`${url}/v1/${p}`) } catch (e: any) { console.log(p, 'axios', e.code, e.message) }
  }
  try { await axios.get(`${url}/v1/hang`, { timeout: 100 }) } catch (e: any) { console.log('hang axios', e.code, e.message) }
  try { await fetch(`${url}/v1/hang`, { signal: AbortSignal.timeout(100) }) } catch (e: any) { console.log('hang fetch', e.name, e.message) }
  const pending = fetch(`${url}/v1/hang`).then(() => console.log('resolved?'), (e: any) => console.log('hang reset', e.message, e.cause?.code))
  await new Promise((r) => setTimeout(r, 50))
  server.reset()
  await pending
  console.log(server.requests().map((r) => [r.url, r.status, r.fault]))
})
