import { beforeEach, describe, expect, it } from 'vitest'
import { authorizationHeader, captureApiTokenFromUrl, getApiToken, setApiToken } from './api-token.ts'
import { installMemoryStorage } from './test-support/memory-storage.ts'

describe('api token', () => {
  beforeEach(() => {
    installMemoryStorage()
  })

  it('adds a bearer header only once a token is stored', () => {
    expect(authorizationHeader()).toEqual({})
    setApiToken('  abc  ')
    expect(getApiToken()).toBe('abc')
    expect(authorizationHeader()).toEqual({ authorization: 'Bearer abc' })
    setApiToken('')
    expect(getApiToken()).toBeNull()
  })

  it('moves ?token= from the address into storage and keeps the rest of the URL', () => {
    const replaced: string[] = []
    const history = {
      state: null,
      replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url),
    }
    const location = { href: 'http://127.0.0.1:8080/runs?x=1&token=secret#top' }
    captureApiTokenFromUrl(location as Location, history as unknown as History)
    expect(getApiToken()).toBe('secret')
    expect(replaced).toEqual(['/runs?x=1#top'])

    captureApiTokenFromUrl({ href: 'http://h/datasets' } as Location, history as unknown as History)
    expect(replaced).toHaveLength(1)
    expect(getApiToken()).toBe('secret')
  })
})
