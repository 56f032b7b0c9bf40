import { describe, expect, it } from 'vitest'
import { describeUploadError, UPLOAD_NOT_AUTHORISED } from './use-tus-upload.ts'

/** A tus-js-client DetailedError as it arrives for an HTTP answer (only what the function reads). */
function answered(status: number, body: string): Error {
  return Object.assign(new Error(`tus: unexpected response (${status})`), {
    originalResponse: { getStatus: () => status, getBody: () => body },
  }) as Error
}

describe('describeUploadError', () => {
  it('a 401 says to paste the token and keeps the server code, not "interrupted"', () => {
    const body = JSON.stringify({ code: 'INVALID_TOKEN', message: 'the API token is not this server’s' })
    expect(describeUploadError(answered(401, body) as never)).toEqual({
      code: 'INVALID_TOKEN',
      message: UPLOAD_NOT_AUTHORISED,
      unauthorised: true,
    })
    expect(describeUploadError(answered(401, '') as never)).toMatchObject({
      code: 'UNAUTHORIZED',
      unauthorised: true,
    })
  })

  it('other answers keep the server’s coded error; no answer is UPLOAD_FAILED', () => {
    const body = JSON.stringify({ code: 'VALIDATION_FAILED', message: 'name: too long' })
    expect(describeUploadError(answered(400, body) as never)).toEqual({
      code: 'VALIDATION_FAILED',
      message: 'name: too long',
      unauthorised: false,
    })
    expect(describeUploadError(new Error('network down'))).toEqual({
      code: 'UPLOAD_FAILED',
      message: 'network down',
      unauthorised: false,
    })
  })
})
