// Installs what the recipe runs on, as an app would have it: its own dependencies (Next.js,
// React) from its lockfile when they are missing, and mockyard itself as an installed package
// (the files `npm pack` ships, copied from this repository's built `dist/`: run
// `npm run build` at the root first). A symlink would not do: Next.js bundles a package whose
// real path lies outside node_modules, instead of loading it as Node does.
// Run by the recipe's playwright.config.ts before the mock server starts.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))
const root = fileURLToPath(new URL('../../', import.meta.url))
const modules = `${here}node_modules/`

if (!existsSync(`${modules}next/package.json`)) {
  // `npm install --no-save` rather than `npm ci`: the versions are the lockfile's either way, but
  // `npm ci` refuses a lockfile written behind a registry mirror that lacks Next's SWC binaries
  // for other systems (optional packages); `--no-save` leaves the lockfile as it is.
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const status = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund'], { cwd: here, stdio: 'inherit' }).status
  if (status !== 0) process.exit(status ?? 1)
}
if (!existsSync(`${root}dist/node/index.js`)) {
  console.error('[recipe-next] mockyard is not built: run `npm run build` in the repository first.')
  process.exit(1)
}
const target = `${modules}mockyard/`
rmSync(target, { recursive: true, force: true })
const { files } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'))
for (const entry of ['package.json', ...files.filter((file) => !file.startsWith('!') && file !== 'src' && file !== 'docs')]) {
  if (existsSync(`${root}${entry}`)) cpSync(`${root}${entry}`, `${target}${entry}`, { recursive: true })
}
mkdirSync(`${modules}.bin`, { recursive: true })
rmSync(`${modules}.bin/mockyard`, { force: true })
symlinkSync('../mockyard/dist/cli/bin.js', `${modules}.bin/mockyard`)
