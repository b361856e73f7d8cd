// next.config.mjs
export default {
  // mockyard runs as Node loads it, not bundled: one copy, hooked into Node's own http and fetch.
  serverExternalPackages: ['mockyard'],
  // This recipe lives inside the mockyard repository, which has its own lockfile.
  turbopack: { root: import.meta.dirname },
  outputFileTracingRoot: import.meta.dirname,
}
