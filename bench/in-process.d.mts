/** Runs one in-process bench case in a child process with `--expose-gc`; resolves with its measurement. */
export function runCaseInChild(name: string, count: number): Promise<{ kbPerRequest: number; count: number; [key: string]: unknown }>
