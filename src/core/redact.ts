/**
 * Secrets never shown: the values of these request headers are replaced by `<redacted>` in the
 * request log, the log lines and every explanation (docs/behaviour.md, "Security").
 */
export const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie'])

/** What a secret header's value reads as. */
export const REDACTED = '<redacted>'

/** Whether a header's value must be hidden (names in any case). */
export function isSecretHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase())
}

/**
 * A short JSON form of a value for messages: at most `max` characters, walking no deeper than
 * needed, so a huge or deeply nested request body costs the same as a small one.
 *
 * @example
 * preview({ a: [1, 2, 3] }) // '{"a":[1,2,3]}'
 */
export function preview(value: unknown, max = 120): string {
  let out = ''
  const write = (text: string) => {
    out += text
    return out.length <= max
  }
  const walk = (node: unknown, depth: number): boolean => {
    if (node === undefined) return write('undefined')
    if (typeof node === 'string') return write(JSON.stringify(node.length > max ? node.slice(0, max + 1) : node))
    if (node === null || typeof node !== 'object') return write(JSON.stringify(node) ?? String(node))
    if (depth >= 8) return write('…')
    if (Array.isArray(node)) {
      if (!write('[')) return false
      for (let i = 0; i < node.length; i++) {
        if ((i > 0 && !write(',')) || !walk(node[i], depth + 1)) return false
      }
      return write(']')
    }
    if (!write('{')) return false
    let first = true
    for (const key in node) {
      if (!Object.prototype.hasOwnProperty.call(node, key)) continue
      if ((!first && !write(',')) || !write(`${JSON.stringify(key)}:`) || !walk((node as Record<string, unknown>)[key], depth + 1)) return false
      first = false
    }
    return write('}')
  }
  return walk(value, 0) ? out : `${out.slice(0, max)}…`
}
