import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { conditions: ['@codebook/source'] },
  test: { include: ['src/**/*.test.ts', 'src/**/*.test.tsx'] },
})
