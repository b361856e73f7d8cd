/**
 * What checking data files at load costs, per load of a config naming 55 files (the 44-route
 * config of vitest-files.mjs): nothing (files read on first use, unchecked: `setupMockServer`
 * before), a stat per file, one listing of the folder (`setupMockServer` now, so that a missing
 * file is a warning at load), and a read with a JSON check per file (the listener surfaces). Vitest loads once per test file,
 * in a fresh process: each case runs in fresh processes, interleaved, and the table shows the
 * median time of that first load. Figures from the same run only; no test asserts them.
 *
 *   npx node bench/load-checks.mjs [--runs 9]
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '9' }, case: { type: 'string' }, dir: { type: 'string' } } })
const names = Array.from({ length: 55 }, (_, i) => `resource-${i}.json`)
const cases = {
  'nothing (read on first use, unchecked)': () => {},
  'a stat per file': (dir) => {
    for (const name of names) statSync(join(dir, name), { throwIfNoEntry: false })?.isFile()
  },
  'one readdir (setupMockServer now)': (dir) => {
    const present = new Set(readdirSync(dir))
    for (const name of names) present.has(name)
  },
  'read + JSON check per file (listener)': (dir) => {
    for (const name of names) JSON.parse(readFileSync(join(dir, name), 'utf8'))
  },
}

if (values.case !== undefined) {
  // A child: one first load, in a fresh process.
  const started = performance.now()
  cases[values.case](values.dir)
  process.stdout.write(String(performance.now() - started))
} else {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-load-checks-'))
  for (const name of names) writeFileSync(join(dir, name), JSON.stringify({ id: 1, items: Array.from({ length: 20 }, (_, n) => ({ n, name: `item ${n}` })) }))
  const times = Object.fromEntries(Object.keys(cases).map((label) => [label, []]))
  for (let run = 0; run < Number(values.runs); run++) {
    for (const label of Object.keys(cases)) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--case', label, '--dir', dir], { encoding: 'utf8' })
      times[label].push(Number(child.stdout))
    }
  }
  const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1]
  for (const [label, list] of Object.entries(times)) console.log(`${label.padEnd(40)} ${median(list).toFixed(2)} ms (median first load of ${list.length} processes)`)
  rmSync(dir, { recursive: true, force: true })
}
