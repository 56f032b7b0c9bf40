import { beforeEach, describe, expect, it } from 'vitest'
import { getApiToken, setApiToken } from './api-token.ts'
import { installMemoryStorage } from './test-support/memory-storage.ts'
import { createTokenStatusStore, type TokenCheck } from './token-status.ts'

// Stands in for POST /api/token/check (the e2e test runs the real one): accepts 'right' only.
const serverCheck: TokenCheck = async (token) => {
  if (token.trim() !== 'right') throw { code: 'INVALID_TOKEN', message: 'the API token is not this server’s' }
}

describe('token status', () => {
  beforeEach(() => installMemoryStorage())

  it('is missing (read-only) without a stored token, and asks the server nothing', async () => {
    let asked = 0
    const store = createTokenStatusStore(async () => void asked++)
    expect(store.getSnapshot().state).toBe('missing')
    await store.checkStored()
    expect(store.getSnapshot().state).toBe('missing')
    expect(asked).toBe(0)
  })

  it('checks a stored token at start: valid, or rejected with the server’s reason', async () => {
    setApiToken('right')
    const store = createTokenStatusStore(serverCheck)
    expect(store.getSnapshot().state).toBe('checking')
    await store.checkStored()
    expect(store.getSnapshot()).toEqual({ state: 'valid', message: null })
    setApiToken('stale')
    await store.checkStored()
    // In plain words, no HTTP code.
    expect(store.getSnapshot().state).toBe('rejected')
    expect(store.getSnapshot().message).toMatch(/^The token kept in this browser is not this server’s/)
  })

  it('stores a pasted token only when the server accepts it, and says so when it does not', async () => {
    const store = createTokenStatusStore(serverCheck)
    expect(await store.paste('wrong')).toBe(false)
    expect(getApiToken()).toBeNull()
    expect(store.getSnapshot().state).toBe('rejected')
    expect(store.getSnapshot().message).toBe('That token was refused — it is not this server’s API token.')
    expect(await store.paste('  right ')).toBe(true)
    expect(getApiToken()).toBe('right')
    expect(store.getSnapshot()).toEqual({ state: 'valid', message: null })
  })

  it('an unreachable server leaves the token unknown, not wrong', async () => {
    setApiToken('right')
    const store = createTokenStatusStore(async () => {
      throw { code: 'NETWORK_ERROR', message: 'Could not reach the server' }
    })
    await store.checkStored()
    expect(store.getSnapshot().state).toBe('unknown')
  })

  it('a refused write turns the status to missing or rejected; other errors do not', () => {
    const store = createTokenStatusStore(serverCheck)
    store.reportRefusal('UNAUTHORIZED')
    // Said once: the read-only heading, and what was not done when the control does not say it.
    expect(store.getSnapshot()).toEqual({ state: 'missing', message: null })
    store.reportRefusal('UNAUTHORIZED', 'That change was not made: it needs the API token.')
    expect(store.getSnapshot().message).toBe('That change was not made: it needs the API token.')
    setApiToken('stale')
    store.reportRefusal('INVALID_TOKEN', 'not this server’s')
    expect(store.getSnapshot().state).toBe('rejected')
    expect(store.getSnapshot().message).not.toMatch(/INVALID_TOKEN|401/)
    store.reportRefusal('DATASET_NOT_FOUND', 'nope')
    expect(store.getSnapshot().state).toBe('rejected')
  })
})
