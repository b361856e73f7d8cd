import { readFileSync, statSync } from 'node:fs'

/**
 * Reads a user's file as text, only when it is a regular file: a named pipe or a device where a
 * routes or config file should be would block the read for ever (or never end it). Throws an
 * error whose `code` is `'not a regular file'` for those, as `readFileSync` throws `ENOENT`.
 */
export function readTextFile(path: string): string {
  if (!statSync(path).isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'not a regular file' })
  return readFileSync(path, 'utf8')
}
