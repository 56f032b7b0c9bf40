import { CreateImageSetQuery } from '@codebook/shared'
import { describe, expect, it } from 'vitest'
import { defaultImageSetForm, kindOfFile, parseGrid, validateImageSetForm } from './image-set-form.ts'

const png = { name: 'digits.png', size: 721_129 }
const zip = { name: 'Shapes.ZIP', size: 5000 }

describe('image set form', () => {
  it('infers the kind from the file name', () => {
    expect(kindOfFile('digits.png')).toBe('grid')
    expect(kindOfFile('a.JPEG')).toBe('grid')
    expect(kindOfFile('a.jpg')).toBe('grid')
    expect(kindOfFile('classes.zip')).toBe('zip')
    expect(kindOfFile('notes.txt')).toBeNull()
  })

  it('parses cell sizes', () => {
    expect(parseGrid('20x20')).toEqual({ width: 20, height: 20 })
    expect(parseGrid(' 32 × 16 ')).toEqual({ width: 32, height: 16 })
    expect(parseGrid('20')).toBeNull()
    expect(parseGrid('0x20')).toBeNull()
    expect(parseGrid('20x5000')).toBeNull()
  })

  it('makes the digits grid query, which the server schema accepts', () => {
    const r = validateImageSetForm({ ...defaultImageSetForm, name: 'digits' }, png)
    expect(r).toEqual({ ok: true, query: { name: 'digits', kind: 'grid', grid: '20x20', rowsPerClass: 5 } })
    if (r.ok) expect(CreateImageSetQuery.parse(r.query)).toEqual(r.query)
  })

  it('makes a zip query without grid fields, even if they hold junk', () => {
    const r = validateImageSetForm({ name: 'shapes', kind: 'zip', grid: 'junk', rowsPerClass: '' }, zip)
    expect(r).toEqual({ ok: true, query: { name: 'shapes', kind: 'zip' } })
  })

  it('names the wrong fields', () => {
    const r = validateImageSetForm({ name: ' ', kind: 'grid', grid: '20*20', rowsPerClass: '0' }, null)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(Object.keys(r.errors).sort()).toEqual(['file', 'grid', 'name', 'rowsPerClass'])
  })

  it('rejects a file that does not match the kind, or is empty', () => {
    const a = validateImageSetForm({ ...defaultImageSetForm, name: 'x' }, zip)
    expect(!a.ok && a.errors.file).toBe('Shapes.ZIP is a zip, not an image')
    const b = validateImageSetForm({ ...defaultImageSetForm, name: 'x', kind: 'zip' }, png)
    expect(!b.ok && b.errors.file).toBe('digits.png is an image, not a zip')
    const c = validateImageSetForm({ ...defaultImageSetForm, name: 'x' }, { name: 'e.png', size: 0 })
    expect(!c.ok && c.errors.file).toBe('e.png is empty')
    const d = validateImageSetForm({ ...defaultImageSetForm, name: 'x' }, { name: 'a.gif', size: 3 })
    expect(!d.ok && d.errors.file).toContain('expected a .zip, .png')
  })
})
