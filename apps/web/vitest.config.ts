import { defineConfig } from 'vitest/config'

// Unit tests run in Node (ssr resolution): both condition lists name '@codebook/source' so workspace
// packages are read from their sources, not from a possibly stale dist.
export default defineConfig({
  resolve: { conditions: ['@codebook/source'] },
  ssr: { resolve: { conditions: ['@codebook/source'] } },
  test: { include: ['src/**/*.test.ts', 'src/**/*.test.tsx'] },
})
