/**
 * Whether two bodies hold the same bytes (`null`: no body). The same object is the same body at
 * once; otherwise a plain loop, which for the short bodies it is asked about (at most
 * `REMEMBERED_BYTES`) costs less than decoding either one.
 */
export function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === b) return true
  if (a === null || b === null || a.byteLength !== b.byteLength) return false
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false
  return true
}

/** The longest body remembered by what compares bodies again (`sameBytes`): short bodies are the ones clients send again and again. */
export const REMEMBERED_BYTES = 4096
