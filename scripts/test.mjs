// `npm test`: type check, then every test suite (Vitest; Playwright when a browser is available),
// then one closing line `N passed, N failed` from the runners' own counts.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'

const run = (command, args, env = {}) =>
  spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1

let passed = 0
let failed = 0
let ok = true

mkdirSync('.tmp', { recursive: true })
// The CLI and packaging tests run the built files: build first so they never test stale output.
if (run('npm', ['run', '--silent', 'build']) !== 0) {
  console.error('build failed')
  console.log('0 passed, 1 failed')
  process.exit(1)
}
if (run('npm', ['run', '--silent', 'typecheck']) !== 0) {
  console.error('type check failed')
  ok = false
  failed++
}

rmSync('.tmp/vitest.json', { force: true })
const vitestArgs = ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=.tmp/vitest.json', ...process.argv.slice(2)]
const vitestStatus = run('npx', vitestArgs)
if (existsSync('.tmp/vitest.json')) {
  const report = JSON.parse(readFileSync('.tmp/vitest.json', 'utf8'))
  passed += report.numPassedTests
  failed += report.numFailedTests
  if (report.numFailedTestSuites > 0 && report.numFailedTests === 0) failed += report.numFailedTestSuites
} else failed++
if (vitestStatus !== 0) ok = false

if (existsSync('playwright.config.ts') && process.argv.length <= 2) {
  rmSync('.tmp/playwright.json', { force: true })
  const status = run('npx', ['playwright', 'test'], { PLAYWRIGHT_JSON_OUTPUT_NAME: '.tmp/playwright.json' })
  if (existsSync('.tmp/playwright.json')) {
    const stats = JSON.parse(readFileSync('.tmp/playwright.json', 'utf8')).stats
    passed += stats.expected + (stats.flaky ?? 0)
    failed += stats.unexpected
  } else failed++
  if (status !== 0) ok = false
}

console.log(`${passed} passed, ${failed} failed`)
process.exit(ok && failed === 0 ? 0 : 1)
