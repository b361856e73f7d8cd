/**
 * scripts/find-chromium.mjs, which both Playwright configs and scripts/test.mjs use: it finds a
 * browser by itself (CHROMIUM_PATH, then Playwright's own, then a system browser on the PATH, then
 * the one @sparticuz/chromium ships) and gives a system browser the flags it needs headless.
 */
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'

const FINDER = fileURLToPath(new URL('../../scripts/find-chromium.mjs', import.meta.url))
const folders: string[] = []
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })))

function folder(): string {
  const path = mkdtempSync(join(tmpdir(), 'mockyard-finder-'))
  folders.push(path)
  return path
}

/** Runs the finder in a child with exactly this environment (no Playwright browsers installed). */
function find(env: Record<string, string>): unknown {
  const script = `import(${JSON.stringify(FINDER)}).then((m) => console.log(JSON.stringify(m.findChromium() ?? null)))`
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PLAYWRIGHT_BROWSERS_PATH: folder(), ...env },
  })
  expect(result.stderr).toBe('')
  return JSON.parse(result.stdout)
}

function fakeBrowser(name: string): { bin: string; path: string } {
  const bin = folder()
  const path = join(bin, name)
  writeFileSync(path, '#!/bin/sh\n')
  chmodSync(path, 0o755)
  return { bin, path }
}

describe('findChromium', () => {
  it('finds a system Chromium on the PATH when CHROMIUM_PATH is unset, with the headless flags', () => {
    const { bin, path } = fakeBrowser('chromium')
    expect(find({ PATH: bin })).toEqual({ executablePath: path, args: expect.arrayContaining(['--no-sandbox', '--disable-gpu']), source: 'system' })
  })

  it('tries chromium, then chromium-browser, then google-chrome', () => {
    const chrome = fakeBrowser('google-chrome')
    const browser = fakeBrowser('chromium-browser')
    expect(find({ PATH: [chrome.bin, browser.bin].join(':') })).toMatchObject({ executablePath: browser.path, source: 'system' })
    expect(find({ PATH: chrome.bin })).toMatchObject({ executablePath: chrome.path, source: 'system' })
  })

  it('CHROMIUM_PATH wins over everything', () => {
    const { bin } = fakeBrowser('chromium')
    expect(find({ PATH: bin, CHROMIUM_PATH: '/opt/chrome/chrome' })).toMatchObject({ executablePath: '/opt/chrome/chrome', source: 'CHROMIUM_PATH' })
  })

  it("prefers Playwright's own headless shell when it is installed", () => {
    const browsers = folder()
    // The layout `npx playwright install chromium` leaves: the revision comes from playwright-core.
    const expected = spawnSync(process.execPath, ['--input-type=module', '-e', "import('playwright-core').then((m) => console.log(m.chromium.executablePath()))"], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      env: { PLAYWRIGHT_BROWSERS_PATH: browsers },
    }).stdout.trim()
    const revision = /chromium-(\d+)/.exec(expected)![1]
    const shell = join(browsers, `chromium_headless_shell-${revision}`, 'chrome-headless-shell-linux64')
    mkdirSync(shell, { recursive: true })
    writeFileSync(join(shell, 'chrome-headless-shell'), '')
    const { bin } = fakeBrowser('chromium')
    expect(find({ PATH: bin, PLAYWRIGHT_BROWSERS_PATH: browsers })).toEqual({ args: [], source: 'playwright' })
  })

  it('finds nothing where there is no browser at all', () => {
    expect(find({ PATH: folder() })).toBeNull()
  })
})

describe('the packaged Chromium (@sparticuz/chromium), for machines with no browser and no root', () => {
  it('is what ensureChromium finds where nothing else is, and it runs a page with a service worker', async () => {
    const script = `import(${JSON.stringify(FINDER)}).then(async (m) => console.log(JSON.stringify(await m.ensureChromium())))`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { PLAYWRIGHT_BROWSERS_PATH: folder(), PATH: folder() },
      timeout: 120_000,
    })
    expect(result.stderr).toBe('')
    const found = JSON.parse(result.stdout) as { executablePath: string; args: string[]; source: string }
    expect(found).toMatchObject({ source: 'package', args: expect.arrayContaining(['--no-sandbox']) })

    // A page on loopback registers a worker that answers /hello itself: the controlled page sees its answer.
    const site = createServer((request, response) => {
      if (request.url === '/sw.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' })
        response.end("self.addEventListener('install', () => self.skipWaiting()); self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim())); self.addEventListener('fetch', (e) => { if (new URL(e.request.url).pathname === '/hello') e.respondWith(new Response('from the worker')) })")
      } else if (request.url === '/hello') {
        response.end('from the network')
      } else {
        response.writeHead(200, { 'content-type': 'text/html' })
        response.end('<!doctype html><title>sw</title>')
      }
    })
    await new Promise<void>((done) => site.listen(0, '127.0.0.1', done))
    const { port } = site.address() as AddressInfo
    const browser = await chromium.launch({ executablePath: found.executablePath, args: found.args, headless: true })
    try {
      const page = await browser.newPage()
      await page.goto(`http://127.0.0.1:${port}/`)
      const text = await page.evaluate(async () => {
        await navigator.serviceWorker.register('/sw.js')
        await navigator.serviceWorker.ready
        if (!navigator.serviceWorker.controller) await new Promise((done) => navigator.serviceWorker.addEventListener('controllerchange', done, { once: true }))
        return (await fetch('/hello')).text()
      })
      expect(text).toBe('from the worker')
    } finally {
      await browser.close()
      site.close()
    }
  }, 180_000)
})
