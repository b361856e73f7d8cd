/**
 * The words of a command line parseArgs refuses, the same for every command: an unknown long
 * flag gets the closest known one (`--prot`: did you mean `--port`?), as an unknown option does
 * (docs/behaviour.md, "Options"), and the message says where the help is.
 */
import { closestName } from '../config/closest-name.js'
import { formatMessage } from '../core/errors.js'
import { listOf } from '../core/count.js'

/** The commands after `mockyard`, for the suggestion of a misspelt one. */
export const COMMANDS = ['check', 'init', 'record', 'import'] as const

/**
 * The message for an error of parseArgs: of `mockyard` itself (`command` undefined) or of one of
 * its commands, whose flags are `flags` (`no-watch` and the like included).
 */
export function usageMessage(error: Error & { code?: string }, flags: readonly string[], command?: string): string {
  const help = command === undefined ? 'Run mockyard --help for the flags.' : `Run mockyard ${command} --help for the options.`
  const lead = command === undefined ? '' : `${command}: `
  const flag = /'(-[^' ]*)/.exec(error.message)?.[1]
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const close = flag.startsWith('--') ? closestName(flag.slice(2).split('=')[0]!, flags) : undefined
    return formatMessage(`${lead}unknown flag ${flag}: ${close ? `did you mean --${close}?` : `${command ?? 'mockyard'} has no such flag.`} ${help}`)
  }
  const argument = error.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' ? /'([^']*)'/.exec(error.message)?.[1] : undefined
  if (argument !== undefined && command === undefined) {
    const close = closestName(argument, COMMANDS)
    const commands = listOf(COMMANDS)
    return formatMessage(
      close
        ? `unknown command ${argument}: did you mean mockyard ${close}? The commands are ${commands}. ${help}`
        : `unknown command ${argument}: mockyard serves the mocks with flags alone (mockyard --port 3001), and its commands are ${commands}. ${help}`,
    )
  }
  return formatMessage(`${lead}${error.message.replace(/\.$/, '')}. ${help}`)
}
