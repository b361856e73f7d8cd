/**
 * scripts/find-chromium.mjs, which both Playwright configs and scripts/test.mjs use: it finds a
 * browser by itself (CHROMIUM_PATH, then Playwright's own, then a system browser on the PATH) and
 * gives a system browser the flags it needs headless.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
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
