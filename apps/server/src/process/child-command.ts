import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'

/**
 * How to fork a child module that sits beside the caller, chosen as the runtime's `workerCommand`
 * is: from TypeScript source (Vitest, tsx) through tsx and the `@codebook/source` condition,
 * otherwise the compiled `.js` beside the caller.
 * @param callerUrl the caller's `import.meta.url`
 * @param baseName the child module's name without extension, e.g. `./assignment-child`
 */
export function childCommand(callerUrl: string, baseName: string): { entry: string; execArgv: string[] } {
  if (fileURLToPath(callerUrl).endsWith('.ts')) {
    const tsx = pathToFileURL(createRequire(callerUrl).resolve('tsx')).href
    return {
      entry: fileURLToPath(new URL(`${baseName}.ts`, callerUrl)),
      execArgv: ['--conditions=@codebook/source', '--import', tsx],
    }
  }
  return { entry: fileURLToPath(new URL(`${baseName}.js`, callerUrl)), execArgv: [] }
}
