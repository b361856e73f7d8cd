/**
 * How a listener names itself: the URL a program can use, and the line the CLI, the recorder and
 * `MockServer` print once they accept connections (docs/behaviour.md, "Requests on the wire").
 */
import type { AddressInfo } from 'node:net'

/** A host as it is written in a URL: IPv6 addresses in brackets (`[::1]`). */
export function urlHostOf(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/**
 * The line a listener prints once it accepts connections, naming the host it was given:
 * `mockyard listening on http://[::1]:9999`. Playwright's `webServer` reads the URL from it.
 */
export function listeningLine(host: string, port: number): string {
  return `mockyard listening on http://${urlHostOf(host)}:${port}`
}

/**
 * The URL a client on this machine uses: `localhost` for a listener on every interface
 * (`0.0.0.0`, `::`), else the address it is bound to.
 */
export function localUrlOf(host: string, address: AddressInfo): string {
  const urlHost = host === '0.0.0.0' || host === '::' ? 'localhost' : urlHostOf(address.address)
  return `http://${urlHost}:${address.port}`
}
