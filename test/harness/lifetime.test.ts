import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { createPipeline } from '../../src/harness/pipeline.js'

const pipeline = () => createPipeline({ sources: [], engine: { latency: 0 } })

describe('pipeline lifetimes: what ends open streams, hung requests and sockets', () => {
  it("a session's reset aborts that session's lifetime only", () => {
    const p = pipeline()
    const a = p.lifetime('a')
    const b = p.lifetime('b')
    expect(p.lifetime('a')).toBe(a)
    p.reset('a')
    expect(a.aborted).toBe(true)
    expect(b.aborted).toBe(false)
    // A new lifetime after the reset is live again.
    expect(p.lifetime('a').aborted).toBe(false)
  })

  it("everyone's reset and close() abort every lifetime", () => {
    const p = pipeline()
    const shared = p.lifetime()
    const a = p.lifetime('a')
    p.reset()
    expect(shared.aborted && a.aborted).toBe(true)
    const b = p.lifetime('b')
    p.close()
    expect(b.aborted).toBe(true)
  })
})

describe("a route's latency ends with the request's lifetime", () => {
  // A user's symptom: `node --test` or Jest waited out a long latency after the tests were done.
  const script = (body: string) => `
    import { startMockServer } from ${JSON.stringify(new URL('../../dist/node/index.js', import.meta.url).href)}
    const mocks = await startMockServer({ routes: { slow: { status: 200, latency: 30000 } }, latency: 0 })
    ${body}
  `
  const exitAfter = (body: string) => {
    const started = Date.now()
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script(body)], { encoding: 'utf8', timeout: 20_000 })
    return { ms: Date.now() - started, status: child.status, stdout: child.stdout, stderr: child.stderr }
  }

  it('a client that gave up, then stop(): the process exits at once, not when the latency would end', () => {
    const run = exitAfter(`
      const controller = new AbortController()
      const request = fetch(mocks.url + '/slow', { signal: controller.signal }).catch(() => 'aborted')
      await new Promise((resolve) => setTimeout(resolve, 200))
      controller.abort()
      console.log(await request)
      await mocks.stop()
    `)
    expect(run.status, run.stderr).toBe(0)
    // Generous: the latency is 30 s; an exit within 10 s can only mean its timer was cleared.
    expect(run.ms).toBeLessThan(10_000)
  })

  it('stop() lets a request in flight run its latency for the grace, then answers it at once: no timer is left', () => {
    const run = exitAfter(`
      const answer = fetch(mocks.url + '/slow').then((res) => res.status, () => 'cut')
      await new Promise((resolve) => setTimeout(resolve, 200))
      await mocks.stop({ graceMs: 100 })
      console.log(await answer)
    `)
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe('200')
    // Generous: the latency is 30 s; an exit within 10 s can only mean its timer was cleared.
    expect(run.ms).toBeLessThan(10_000)
  })

  it('a request in flight at reset is answered then, not 30 s later', () => {
    const run = exitAfter(`
      const answer = fetch(mocks.url + '/slow').then((res) => res.status)
      await new Promise((resolve) => setTimeout(resolve, 200))
      mocks.reset()
      console.log(await answer)
      await mocks.stop()
    `)
    expect(run.status, run.stderr).toBe(0)
    expect(run.ms).toBeLessThan(10_000)
  })
})

describe('a reset during the latency of a hang or a stream', () => {
  it('ends them then: they never run on into the next test', async () => {
    const { startMockServer } = await import('mockyard/node')
    const server = await startMockServer({
      routes: { hung: { latency: 10_000, fault: 'hang' }, live: { latency: 10_000, events: [{ data: 'one' }, { data: 'two', delay: 10_000 }] } },
      latency: 0,
    })
    try {
      const hung = fetch(`${server.url}/hung`).then(() => 'answered', () => 'cut')
      const live = fetch(`${server.url}/live`).then((res) => res.text(), () => 'cut')
      await new Promise((resolve) => setTimeout(resolve, 200))
      server.reset()
      const settled = await Promise.race([Promise.all([hung, live]), new Promise((resolve) => setTimeout(() => resolve('still open 5 s after the reset'), 5000))])
      expect(settled).toEqual(['cut', ''])
      expect(server.requests()).toEqual([])
    } finally {
      await server.stop()
    }
  })
})
