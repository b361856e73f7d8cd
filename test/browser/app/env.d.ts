// The module the mockyard Vite plugin provides (see docs/browser.md).
declare module 'virtual:mockyard' {
  const config: import('mockyard/browser').SerializedConfig
  export default config
}
