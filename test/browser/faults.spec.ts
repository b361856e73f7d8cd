/**
 * docs/behaviour.md, "Faults", in the browser: `startWorker` plays each fault as the page's fetch
 * sees a failing network (network errors, a cut body), a hang ends with the page's own signal or
 * the worker's reset, and the request log records the fault.
 */
import { expect, test, type Page } from '@playwright/test'
import type { MockyardWorker } from 'mockyard/browser'
import { openApp } from './support.js'

type FaultsWindow = Window & { mocks: MockyardWorker; attempt(path: string, timeout?: number): Promise<string> }
const attempt = (page: Page, path: string, timeout?: number) => page.evaluate(([p, t]) => (window as unknown as FaultsWindow).attempt(p as string, t as number | undefined), [path, timeout] as const)

test.describe('faults in the worker', () => {
  test('reset and close are network errors; truncate answers a body that fails; the log records them', async ({ page }) => {
    await openApp(page, '/faults.html')
    expect(await attempt(page, '/v1/flaky')).toBe('failed: TypeError')
    expect(await attempt(page, '/v1/closed')).toBe('failed: TypeError')
    expect(await attempt(page, '/v1/cut')).toBe('200 body failed: TypeError')
    const log = await page.evaluate(() => (window as unknown as FaultsWindow).mocks.requests().map((r) => [r.route, r.status, r.fault]))
    expect(log).toEqual([
      ['v1/flaky', 0, 'reset'],
      ['v1/closed', 0, 'close'],
      ['v1/cut', 200, 'truncate'],
    ])
  })

  test("truncate of a stream: the page's reader gets the first half of the pieces before the error, every time", async ({ page }) => {
    await openApp(page, '/faults.html')
    const reads = await page.evaluate(async () => {
      const seen: string[] = []
      for (let i = 0; i < 20; i++) {
        const res = await fetch('/v1/cut-stream')
        const reader = res.body!.getReader()
        let text = ''
        try {
          for (;;) {
            const { done, value } = await reader.read()
            if (done) break
            text += new TextDecoder().decode(value)
          }
          seen.push(`complete: ${text.split('\n').length - 1} lines`)
        } catch (error) {
          seen.push(`${(error as Error).name} after ${text.split('\n').length - 1} lines`)
        }
      }
      return seen
    })
    expect(reads).toEqual(Array.from({ length: 20 }, () => 'TypeError after 5 lines'))
  })

  test("truncate: the page's reader gets the first half before the error, every time", async ({ page }) => {
    await openApp(page, '/faults.html')
    const reads = await page.evaluate(async () => {
      const seen: string[] = []
      for (let i = 0; i < 20; i++) {
        const res = await fetch('/v1/cut')
        const reader = res.body!.getReader()
        let bytes = 0
        try {
          for (;;) {
            const { done, value } = await reader.read()
            if (done) break
            bytes += value.byteLength
          }
          seen.push(`complete after ${bytes} bytes`)
        } catch (error) {
          seen.push(`${(error as Error).name} after ${bytes} of ${res.headers.get('content-length')} bytes`)
        }
      }
      return seen
    })
    const whole = Number(reads[0]!.split(' of ')[1]?.split(' ')[0])
    expect(reads).toEqual(Array.from({ length: 20 }, () => `TypeError after ${Math.floor(whole / 2)} of ${whole} bytes`))
  })

  test('the retry sequence: a network error, then 503, then the answer', async ({ page }) => {
    await openApp(page, '/faults.html')
    const seen = [await attempt(page, '/v1/retry'), await attempt(page, '/v1/retry'), (await attempt(page, '/v1/retry')).slice(0, 3)]
    expect(seen).toEqual(['failed: TypeError', '503 ', '200'])
  })

  test('a hang ends with the page\'s own timeout, or with the worker\'s reset', async ({ page }) => {
    await openApp(page, '/faults.html')
    expect(await attempt(page, '/v1/stuck', 200)).toBe('failed: TimeoutError')
    const ended = await page.evaluate(async () => {
      const { mocks, attempt } = window as unknown as FaultsWindow
      const pending = attempt('/v1/stuck')
      await mocks.waitForRequest((r) => r.fault === 'hang' && mocks.requests().length === 2, { timeout: 5000 })
      mocks.reset()
      return pending
    })
    expect(ended).toBe('failed: TypeError')
  })
})
