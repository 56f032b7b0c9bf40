import { defineConfig } from 'vitest/config'

// Tests import sibling packages from source (the "@codebook/source" export condition), so no build is needed to test.
export default defineConfig({
  resolve: { conditions: ['@codebook/source'] },
  ssr: { resolve: { conditions: ['@codebook/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'bench/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One file at a time: files start worker pools on OS-assigned ports, and a port one test
    // closes on purpose (a "dead" worker) could be handed to another file's new listener, which
    // would then accept connections meant to be refused. The data plane does not yet check who
    // answered a connection (see CONTEXT.md, pitfalls).
    fileParallelism: false,
  },
})
