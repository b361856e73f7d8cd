/** Types of find-chromium.mjs (the Playwright configs import it). */
export declare const SYSTEM_BROWSERS: string[]
export declare const SYSTEM_BROWSER_ARGS: string[]
export declare const INSTALL_HINT: string
export interface FoundChromium {
  /** The executable to launch; undefined: Playwright's own headless shell. */
  executablePath: string | undefined
  /** Launch flags (a system browser's headless flags). */
  args: string[]
  source: 'CHROMIUM_PATH' | 'playwright' | 'system' | 'package'
}
/** The Chromium to run the browser tests in, or undefined when there is none. */
export declare function findChromium(): FoundChromium | undefined
/** The headless Chromium of `@sparticuz/chromium`, extracted on first use; undefined when not installed. */
export declare function packagedChromium(): Promise<FoundChromium | undefined>
/** findChromium(), else the packaged Chromium. */
export declare function ensureChromium(): Promise<FoundChromium | undefined>
