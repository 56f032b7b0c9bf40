import type { Dataset } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { browserErrorMessage, duplicateNameWarning } from './upload-advice.ts'

const dataset = (name: string): Dataset => ({ name }) as Dataset

describe('upload advice', () => {
  it('says what to change in the form, not which CLI flag to pass', () => {
    const message = browserErrorMessage({
      code: 'UNKNOWN_FORMAT',
      message:
        'cannot tell the format from the name or the content; pass --format (hog-text, npy, fvecs, bvecs, csv)',
    })
    expect(message).not.toContain('--')
    expect(message).toContain('Format in the upload form')
    expect(browserErrorMessage({ code: 'OTHER', message: 'x; pass --format (npy, csv)' })).toBe(
      'x (pick the Format in the upload form)',
    )
    expect(browserErrorMessage({ code: 'BAD_GZIP', message: 'corrupt gzip data' })).toBe('corrupt gzip data')
  })

  it('warns of a name already taken, ignoring case and spaces', () => {
    const list = [dataset('digits'), dataset('Patches'), dataset('patches ')]
    expect(duplicateNameWarning('other', list)).toBeNull()
    expect(duplicateNameWarning('  ', list)).toBeNull()
    expect(duplicateNameWarning(' DIGITS', list)).toContain('already named “digits”')
    expect(duplicateNameWarning('patches', list)).toMatch(/^2 datasets are already named/)
  })
})
