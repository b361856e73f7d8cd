/**
 * Running the built CLI (dist/: `npm run build` first) from tests, as a user runs it: a real
 * process. `startCli` resolves once the listening line is printed; every process started is
 * killed by `killClis()` (call it in afterEach).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))

const children: ChildProcess[] = []

export interface CliOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
}

/** Runs the CLI to its end: exit code and output. */
export function runCli(args: string[], { cwd = process.cwd(), env = process.env }: CliOptions = {}): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: 'utf8', timeout: 15_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

export interface RunningCli {
  child: ChildProcess
  /** The URL of the listening line, as printed. */
  printed: string
  /** `http://127.0.0.1:PORT`: the listener on loopback, whatever host it printed. */
  url: string
  /** What the process wrote to stderr so far. */
  stderr(): string
}

/** Starts the CLI and resolves once it prints `mockyard listening on URL`; rejects if it exits first. */
export function startCli(args: string[], { cwd = process.cwd(), env = process.env }: CliOptions = {}): Promise<RunningCli> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${stderr}`)), 10_000)
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)))
    child.stdout!.on('data', (chunk) => {
      stdout += chunk
      const line = /^mockyard listening on (\S+)$/m.exec(stdout)
      if (line) {
        clearTimeout(timer)
        const port = /:(\d+)$/.exec(line[1]!)![1]
        resolve({ child, printed: line[1]!, url: `http://127.0.0.1:${port}`, stderr: () => stderr })
      }
    })
  })
}

/** Kills every CLI process the tests started. */
export function killClis(): void {
  for (const child of children.splice(0)) child.kill('SIGKILL')
}
