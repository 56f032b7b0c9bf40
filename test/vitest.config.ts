import { defineConfig } from 'vitest/config'

// End-to-end tests start real servers, worker processes and Chromium: one file at a time on a 2-core machine.
export default defineConfig({
  resolve: { conditions: ['@codebook/source'] },
  ssr: { resolve: { conditions: ['@codebook/source'] } },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'artifacts/**'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
})
