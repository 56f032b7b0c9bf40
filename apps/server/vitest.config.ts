import { defineConfig } from 'vitest/config'

// Tests import sibling packages from source (the "@codebook/source" export condition), so no build is needed to test.
export default defineConfig({
  resolve: { conditions: ['@codebook/source'] },
  ssr: { resolve: { conditions: ['@codebook/source'] } },
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['src/test-support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
