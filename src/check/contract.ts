/**
 * Loads the `validate` option's checker into an instance, for every node surface that serves one
 * (the CLI, `startMockServer`, `createMiddleware`, `MockServer`, `setupMockServer`). The checker,
 * the `$ref` resolver and ajv are imported here only when `validate` is set: an instance without
 * it loads and changes nothing (docs/behaviour.md, "Traffic checked against a contract").
 */
import { ConfigError } from '../core/errors.js'
import type { Instance } from '../config/instance.js'
import { displayPath } from './problem.js'

const FIX = 'Give validate the path of an OpenAPI 3.0 or 3.1 document (JSON or YAML), such as "openapi.yaml".'

/**
 * Checks the instance's traffic against the document its `validate` option names. A document
 * that cannot be used stops the start (the instance is closed) with a `ConfigError` naming the
 * option, or the place in the document, and the fix.
 *
 * @example
 * const instance = await createInstance(options, TEST_DEFAULTS)
 * await attachContract(instance)
 */
export async function attachContract(instance: Instance): Promise<void> {
  const path = instance.options.validate
  if (path === undefined) return
  const cwd = process.cwd()
  try {
    const { loadTrafficCheck } = await import('./traffic.js')
    instance.setTrafficCheck(await loadTrafficCheck(path, (file) => displayPath(file, cwd)))
  } catch (error) {
    await instance.close()
    const { place, fix } = error as { place?: { file: string; pointer: string }; fix?: string }
    const reason = ((error as Error)?.message ?? String(error)).split('\n')[0]!.replace(/\.$/, '')
    const file = place ? displayPath(place.file, cwd) : (instance.config.configFile ?? 'options')
    throw new ConfigError([{ file, pointer: place ? place.pointer : '/validate', message: `the OpenAPI document ${displayPath(path, cwd)} of the validate option cannot be used: ${reason}`, fix: fix ?? FIX }], { cause: error })
  }
}
