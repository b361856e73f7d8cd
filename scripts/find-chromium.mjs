// Finds the Chromium the browser tests run in, by itself: `CHROMIUM_PATH`, then Playwright's own
// browsers when they are installed, then a system browser on the PATH, and when there is none of
// those, the headless Chromium the npm package `@sparticuz/chromium` ships (a devDependency: it
// needs no root and no download, and service workers run in it). Used by the Playwright configs
// (the launch options) and scripts/test.mjs (which says when there is none).
import { accessSync, constants, existsSync, readdirSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { chromium } from 'playwright-core'

/** System browsers, in the order they are tried. */
export const SYSTEM_BROWSERS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome']

/** Flags a system browser needs to run headless in a container or CI (no sandbox, no GPU, quiet). */
export const SYSTEM_BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
]

/** The command that makes a browser available when none is found. */
export const INSTALL_HINT = 'npm install (it brings @sparticuz/chromium), npx playwright install chromium, or set CHROMIUM_PATH to a Chromium or Chrome executable'

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function onPath(name) {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (folder && isExecutable(join(folder, name))) return join(folder, name)
  }
  return undefined
}

/**
 * Playwright's own Chromium, if installed: its headless shell (what `headless: true` launches)
 * means the default launch works (`executablePath` undefined); the full build alone is launched by
 * its path.
 */
function playwrightBrowser() {
  let full
  try {
    full = chromium.executablePath()
  } catch {
    return undefined
  }
  // <browsers>/chromium-<revision>/<platform folder>/chrome -> <browsers>/chromium_headless_shell-<revision>/
  const build = dirname(dirname(full))
  const revision = /chromium-(\d+)$/.exec(build)?.[1]
  if (revision) {
    const shellFolder = join(dirname(build), `chromium_headless_shell-${revision}`)
    if (existsSync(shellFolder)) {
      for (const platform of readdirSync(shellFolder)) {
        for (const name of ['chrome-headless-shell', 'chrome-headless-shell.exe']) {
          if (existsSync(join(shellFolder, platform, name))) return { executablePath: undefined }
        }
      }
    }
  }
  return existsSync(full) ? { executablePath: full } : undefined
}

/**
 * @returns {{ executablePath: string | undefined, args: string[], source: 'CHROMIUM_PATH' | 'playwright' | 'system' | 'package' } | undefined}
 *   `executablePath` undefined means Playwright's own browsers; `undefined` as a whole means no browser.
 */
export function findChromium() {
  const given = process.env.CHROMIUM_PATH
  if (given) return { executablePath: given, args: SYSTEM_BROWSER_ARGS, source: 'CHROMIUM_PATH' }
  const own = playwrightBrowser()
  if (own) return { executablePath: own.executablePath, args: [], source: 'playwright' }
  for (const name of SYSTEM_BROWSERS) {
    const found = onPath(name)
    if (found) return { executablePath: found, args: SYSTEM_BROWSER_ARGS, source: 'system' }
  }
  return undefined
}

/**
 * The Chromium `@sparticuz/chromium` ships, extracted on first use (about 3 s; later calls reuse
 * it): a self-contained headless shell that needs only libc. Undefined when the package is not
 * installed (it is a devDependency of this repository, not of the published package).
 */
export async function packagedChromium() {
  let Chromium
  try {
    Chromium = (await import('@sparticuz/chromium')).default
  } catch {
    return undefined
  }
  const executablePath = await Chromium.executablePath()
  return { executablePath, args: SYSTEM_BROWSER_ARGS, source: 'package' }
}

/** {@link findChromium}, else the packaged Chromium. */
export async function ensureChromium() {
  return findChromium() ?? (await packagedChromium())
}
