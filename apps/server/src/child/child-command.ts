import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** What `fork` needs to start one of the server's child processes. */
export interface ChildCommand {
  /** Absolute path of the entry module. */
  entry: string
  /** Node flags: the tsx loader and source condition when running from source, the heap limit. */
  execArgv: string[]
}

/** Options of {@link childCommand}. */
export interface ChildCommandOptions {
  /** V8 heap limit of the child in MB (`--max-old-space-size`): a hostile input fails the child, not the server. */
  maxHeapMb?: number
}

/**
 * The command that runs the child entry `name` (e.g. `'./evaluation-child'`, no extension) beside
 * the module at `callerUrl` (pass `import.meta.url`). Chosen as the runtime's `workerCommand` is:
 * when the caller itself runs from TypeScript (Vitest, tsx) the `.ts` entry through tsx with the
 * `@codebook/source` condition, so tests need no build; otherwise the compiled `.js` beside it.
 * tsx is resolved to an absolute URL because `--import tsx` would resolve from the child's cwd.
 */
export function childCommand(
  callerUrl: string,
  name: string,
  options: ChildCommandOptions = {},
): ChildCommand {
  const fromSource = fileURLToPath(callerUrl).endsWith('.ts')
  const heap = options.maxHeapMb === undefined ? [] : [`--max-old-space-size=${options.maxHeapMb}`]
  const entry = fileURLToPath(new URL(`${name}${fromSource ? '.ts' : '.js'}`, callerUrl))
  if (!fromSource) return { entry, execArgv: heap }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return { entry, execArgv: ['--conditions=@codebook/source', '--import', tsx, ...heap] }
}
