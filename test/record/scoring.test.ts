import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRecordWriter, startMockServer } from 'mockyard/node'
import { afterAll, describe, expect, it } from 'vitest'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A small deterministic random source (the same cases on every run). */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
}

describe('recorded entries and the scoring', () => {
  it.each([1, 2, 3, 4, 5])('every recorded request is answered as it was (seed %i)', async (seed) => {
    const next = random(seed)
    const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!
    // The answer depends on some fields' values only; others vary without mattering.
    const answerOf = (a?: string, c?: string, kind?: string) => JSON.stringify({ a: a ?? null, c: c ?? null, kind: kind ?? null })
    const requests: Array<{ method: string; path: string; body?: string; answer: string }> = []
    for (let i = 0; i < 60; i++) {
      const query = new URLSearchParams()
      const a = next() < 0.8 ? pick(['1', '2', '3']) : undefined
      const c = next() < 0.5 ? pick(['x', 'y']) : undefined
      if (a !== undefined) query.set('a', a)
      if (next() < 0.7) query.set('b', pick(['1', '2', '3', '4']))
      if (c !== undefined) query.set('c', c)
      query.set('_', String(1000 + i))
      requests.push({ method: 'GET', path: `/v1/items?${query}`, answer: answerOf(a, c) })
      const kind = pick(['open', 'closed', 'held'])
      const body = JSON.stringify({ order: { kind, lines: [{ sku: pick(['A', 'B']) }] }, at: i })
      requests.push({ method: 'POST', path: '/v1/orders', body, answer: answerOf(undefined, undefined, kind) })
    }
    const out = mkdtempSync(join(tmpdir(), 'mockyard-scoring-'))
    dirs.push(out)
    const writer = createRecordWriter({ out })
    for (const request of requests) {
      await writer.add({
        method: request.method,
        url: `http://api.test${request.path}`,
        requestHeaders: request.body ? [['content-type', 'application/json']] : [],
        requestBody: request.body ? new TextEncoder().encode(request.body) : null,
        status: 200,
        responseHeaders: [['content-type', 'application/json']],
        responseBody: new TextEncoder().encode(request.answer),
      })
    }
    const server = await startMockServer({ routes: join(out, 'routes.json') })
    try {
      for (const request of requests) {
        const res = await fetch(server.url + request.path, { method: request.method, body: request.body, headers: request.body ? { 'content-type': 'application/json' } : {} })
        expect({ request: `${request.method} ${request.path} ${request.body ?? ''}`, answer: await res.text() }).toEqual({ request: `${request.method} ${request.path} ${request.body ?? ''}`, answer: request.answer })
      }
    } finally {
      await server.stop()
    }
  })
})
