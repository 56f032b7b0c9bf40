import { main } from '../main.ts'

/** Runs the CLI in-process with `args`, capturing stdout (non-empty lines) and stderr. */
export async function runCli(args: string[]): Promise<{ code: number; lines: string[]; stderr: string }> {
  const out: string[] = []
  const err: string[] = []
  const [write, writeErr] = [process.stdout.write, process.stderr.write]
  process.stdout.write = ((s: string) => out.push(s) > 0) as typeof process.stdout.write
  process.stderr.write = ((s: string) => err.push(s) > 0) as typeof process.stderr.write
  try {
    const code = await main(args)
    const lines = out
      .join('')
      .split('\n')
      .filter((l) => l.trim() !== '')
    return { code, lines, stderr: err.join('') }
  } finally {
    process.stdout.write = write
    process.stderr.write = writeErr
  }
}
