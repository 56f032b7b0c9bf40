/** A minimal Storage backed by a Map (vitest runs in node, which has no localStorage). */
export function memoryStorage(): Storage {
  const map = new Map<string, string>()
  return {
    get length() {
      return map.size
    },
    clear: () => map.clear(),
    getItem: (k) => map.get(k) ?? null,
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (k) => void map.delete(k),
    setItem: (k, v) => void map.set(k, v),
  }
}

/** Installs a fresh {@link memoryStorage} as `globalThis.localStorage`. */
export function installMemoryStorage(): void {
  Object.defineProperty(globalThis, 'localStorage', { value: memoryStorage(), configurable: true })
}
