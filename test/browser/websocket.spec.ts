/**
 * docs/behaviour.md, "WebSocket", in the browser: msw's `ws` API answers the page's own
 * `WebSocket` with the route's steps, records every message, and a reset closes it with 1012.
 */
import { expect, test } from '@playwright/test'
import type { MockyardWorker } from 'mockyard/browser'
import { openApp } from './support.js'

type SocketWindow = Window & {
  mocks: MockyardWorker
  converse(url: string, messages: string[]): Promise<{ received: string[]; code: number }>
}

test('the page\'s WebSocket gets the steps, and every message is recorded', async ({ page }) => {
  await openApp(page, '/websocket.html')
  const result = await page.evaluate(() => (window as unknown as SocketWindow).converse('ws://chat.example.test/v1/chat', ['{"type":"ping","id":3}', 'what?', 'bye']))
  expect(result).toEqual({ received: ['{"type":"welcome"}', '{"type":"pong","id":3}', 'see you'], code: 1000 })
  const records = await page.evaluate(() => (window as unknown as SocketWindow).mocks.requests().map((r) => [r.kind, r.direction ?? 'open', r.matched, r.data ?? null]))
  expect(records.slice(0, 2)).toEqual([
    ['websocket', 'open', true, null],
    ['websocket', 'out', true, '{"type":"welcome"}'],
  ])
  // The three messages went at once: their replies follow in turn, after the records of the messages.
  expect(records.slice(2)).toHaveLength(5)
  expect(records.slice(2)).toEqual(
    expect.arrayContaining([
      ['websocket', 'in', true, '{"type":"ping","id":3}'],
      ['websocket', 'out', true, '{"type":"pong","id":3}'],
      ['websocket', 'in', false, 'what?'],
      ['websocket', 'in', true, 'bye'],
      ['websocket', 'out', true, 'see you'],
    ]),
  )
})

test('a reset closes the page\'s open sockets with 1012', async ({ page }) => {
  await openApp(page, '/websocket.html')
  const code = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket('ws://chat.example.test/v1/chat')
        socket.addEventListener('message', () => (window as unknown as SocketWindow).mocks.reset())
        socket.addEventListener('close', (event) => resolve(event.code))
      }),
  )
  expect(code).toBe(1012)
})
