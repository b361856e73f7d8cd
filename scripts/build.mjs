/**
 * `npm run build`: a fresh `dist/` with the declarations from `tsc` and the JavaScript bundled by
 * rolldown (rolldown.config.mjs says why and how).
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'
import config, { jestCommonJs } from '../rolldown.config.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
rmSync(`${root}dist`, { recursive: true, force: true })

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const declarations = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], { cwd: root, stdio: 'inherit' })
if (declarations.status !== 0) process.exit(declarations.status ?? 1)

await build(config)
await build(jestCommonJs)
// The types of `require('mockyard/jest')`: a CommonJS file's view of the ES module's declarations.
const esm = `'./index.js', { with: { 'resolution-mode': 'import' } }`
writeFileSync(
  `${root}dist/jest/index.d.cts`,
  `export type MockServerHandle = import(${esm}).MockServerHandle\nexport type SetupOptions = import(${esm}).SetupOptions\nexport declare const setupMockServer: typeof import(${esm}).setupMockServer\n`,
)

// The bin runs as a program (`npx mockyard` in this repository, before npm links it anywhere).
const { bin } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'))
for (const file of Object.values(bin)) chmodSync(`${root}${file}`, 0o755)
