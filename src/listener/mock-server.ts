import type { Server } from 'node:http'
import { formatMessage } from '../core/errors.js'
import { createInstance, LISTENER_DEFAULTS, type Instance, type SurfaceDefaults } from '../config/instance.js'
import type { MockyardOptions } from '../config/options.js'
import { listeningLine } from './address.js'
import { attachContract } from '../check/contract.js'
import { listen, middlewareOf, type Middleware, type RunningServer } from './server.js'

const SERVER_DEFAULTS: SurfaceDefaults = { ...LISTENER_DEFAULTS, bundled: true }

/**
 * The embedding interface of the old Express mock server: construct with a config
 * file path or an options object, then `start()` or `middleware()`. Options given to `start()`
 * or `middleware()` override the constructor's. Without any routes it serves the bundled mocks.
 *
 * @example
 * const server = new MockServer('mocks/config.js')
 * const { url } = await server.start({ port: 0 })
 * console.log(server.config().server.address())
 * await server.stop()
 */
export class MockServer {
  readonly #input: string | MockyardOptions | undefined
  #instance?: Instance
  #running?: RunningServer
  #options: MockyardOptions = {}

  constructor(configPathOrOptions?: string | MockyardOptions) {
    this.#input = configPathOrOptions
  }

  async #load(overrides: MockyardOptions): Promise<Instance> {
    const input = this.#input
    await this.#instance?.close()
    this.#instance =
      typeof input === 'string'
        ? await createInstance(input, SERVER_DEFAULTS, overrides)
        : await createInstance({ ...input, ...overrides }, SERVER_DEFAULTS)
    this.#options = this.#instance.options
    await attachContract(this.#instance)
    return this.#instance
  }

  /** Starts listening; resolves once the server accepts connections. */
  async start(options: MockyardOptions = {}): Promise<{ url: string; port: number; host: string }> {
    if (this.#running) throw new Error(formatMessage('start() failed: this MockServer is already started. Call stop() first, or create another MockServer.'))
    const instance = await this.#load(options)
    this.#running = await listen(instance, instance.options.host ?? '0.0.0.0', instance.options.port ?? 0)
    // The CLI's line, through the logger (docs/behaviour.md, "Options").
    instance.logger.info(listeningLine(this.#running.host, this.#running.port))
    return { url: this.#running.url, port: this.#running.port, host: this.#running.host }
  }

  /** Connect-style middleware over the same configuration. */
  async middleware(options: MockyardOptions = {}): Promise<Middleware> {
    return middlewareOf(await this.#load(options))
  }

  /**
   * Stops listening and answers the requests in flight, as the old server's `close()` did: within
   * `stop()`'s grace, or at once when it is over (a request still in its latency). Resolves
   * `true`, as the old server's did (also when it never started).
   */
  async stop(): Promise<true> {
    const running = this.#running
    this.#running = undefined
    await running?.stop()
    await this.#instance?.close()
    return true
  }

  /** Restarts sequences and clears overrides and the request log. */
  reset(): void {
    this.#instance?.reset()
  }

  /** The options in force and the `node:http` server (once started). */
  config(): { options: MockyardOptions; server: Server | undefined } {
    return { options: this.#options, server: this.#running?.server }
  }

  /** The running server's harness API (request log, overrides); undefined before start(). */
  get harness(): RunningServer | undefined {
    return this.#running
  }
}
