/**
 * Time of `mockyard import` on a large HAR (issue 20: 10,000 entries, 29 MB, took 38 s while
 * routes.json was rewritten after every entry). Generates the HAR with
 * test/record/fixtures/generate-har.mjs, then, interleaved for `--rounds` rounds:
 *
 * - `import`: `importHar()` as the CLI runs it (routes.json written once, at the end);
 * - `per-entry write` (the baseline): the same entries fed to `createRecordWriter()` without
 *   batching, so routes.json is rewritten after each entry that changes it, as before.
 *
 *   npm run build && npx node bench/import-har.mjs
 *   npx node bench/import-har.mjs --entries 20000 --rounds 3
 *
 * Loads mockyard from `dist/`; every output goes to a temporary folder, deleted at the end.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRecordWriter, importHar } from '../dist/node/index.js'
import { writeLargeHar } from '../test/record/fixtures/generate-har.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback)
const ENTRIES = option('--entries', 10_000)
const ROUNDS = option('--rounds', 1)

const dir = mkdtempSync(join(tmpdir(), 'mockyard-import-bench-'))
const har = join(dir, 'big.har')
const size = writeLargeHar(har, ENTRIES)
console.log(`HAR: ${ENTRIES} entries, ${(size / 1024 / 1024).toFixed(1)} MB`)

/** The baseline: what import did before, routes.json rewritten after every entry. */
async function perEntry(out) {
  const { log } = JSON.parse(readFileSync(har, 'utf8'))
  const writer = createRecordWriter({ out })
  for (const entry of log.entries) {
    await writer.add({
      method: entry.request.method,
      url: entry.request.url,
      requestHeaders: entry.request.headers.map((h) => [h.name, h.value]),
      requestBody: entry.request.postData ? new TextEncoder().encode(entry.request.postData.text) : null,
      status: entry.response.status,
      responseHeaders: entry.response.headers.map((h) => [h.name, h.value]),
      responseBody: new TextEncoder().encode(entry.response.content.text),
    })
  }
  return writer.summary()
}

const times = { import: [], 'per-entry write': [] }
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of [['import', (out) => importHar(har, { out })], ['per-entry write', perEntry]]) {
    const out = join(dir, `out-${round}-${name.replace(/\W/g, '')}`)
    const started = performance.now()
    const summary = await run(out)
    const ms = performance.now() - started
    times[name].push(ms)
    console.log(`round ${round + 1}  ${name.padEnd(16)} ${(ms / 1000).toFixed(1).padStart(6)} s   ${summary.routes} routes, ${summary.entries} entries, ${summary.files} files`)
    rmSync(out, { recursive: true, force: true })
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
console.log(`median: import ${(median(times.import) / 1000).toFixed(1)} s, per-entry write ${(median(times['per-entry write']) / 1000).toFixed(1)} s (${(median(times['per-entry write']) / median(times.import)).toFixed(1)}x)`)
rmSync(dir, { recursive: true, force: true })
