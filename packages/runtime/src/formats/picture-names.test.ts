// HOG picture ids as names (Flickr ids, file names, hashes): kept in a table beside ids.npy,
// whose column 0 then holds each name's index. Integer ids keep working as before.
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { detectFormat } from './detect.ts'
import { readPictureNames, STORE_PICTURE_NAMES } from './picture-names.ts'
import { convertToNpy, importToStore, pictureNamesPathFor, readStoredRows } from './store.ts'
import { expectFormatError, useTempDir } from './test-support/fixtures.ts'

const tmp = useTempDir()

describe('picture ids as names', () => {
  it('stores names by first appearance and their index in ids.npy column 0', async () => {
    const names = ['12345678_9abcdef012_o.jpg', 'img0', 'd41d8cd98f00b204e9800998ecf8427e', 'photo-é.png']
    const lines = [
      `${names[0]} 0 0 1 2`,
      `${names[0]} 0 1 3 4`,
      `${names[1]} 5 6 5 6`,
      `${names[2]} 1 1 7 8`,
      `${names[0]} 2 2 9 10`,
      `${names[3]} 3 4 11 12`,
    ]
    const file = await tmp.write('names.txt', `${lines.join('\n')}\n`)
    const dest = join(tmp.dir(), 'names-store')
    const stats = await importToStore(file, dest)
    expect(stats).toMatchObject({ n: 6, d: 2, hasIds: true })
    expect(stats.notes).toEqual([`picture ids are names: ids.npy column 0 indexes ${STORE_PICTURE_NAMES}`])
    expect(await readPictureNames(dest)).toEqual(names)
    const rows = await readStoredRows(dest, 0, 6)
    expect(Array.from(rows.ids as Int32Array)).toEqual([0, 0, 0, 0, 0, 1, 1, 5, 6, 2, 1, 1, 0, 2, 2, 3, 3, 4])
    expect(Array.from(rows.values)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
  })

  it('keeps integer ids as they were (no table), and reads "17" as a name once ids are names', async () => {
    const ints = await tmp.write('ints.txt', '7 0 0 1 2\n8 0 1 3 4\n')
    const dest = join(tmp.dir(), 'ints-store')
    expect((await importToStore(ints, dest)).notes).toEqual([])
    expect(await readPictureNames(dest)).toBeNull()
    expect(Array.from((await readStoredRows(dest, 0, 2)).ids as Int32Array)).toEqual([7, 0, 0, 8, 0, 1])
    const mixed = await tmp.write('mixed.txt', 'a.png 0 0 1 2\n17 0 1 3 4\n')
    const mdest = join(tmp.dir(), 'mixed-store')
    await importToStore(mixed, mdest)
    expect(await readPictureNames(mdest)).toEqual(['a.png', '17'])
  })

  it('refuses a name after integer ids, and names that are too long, not UTF-8 or hold control characters', async () => {
    const late = await tmp.write('late.txt', '1 0 0 1 2\nimg1 0 1 3 4\n')
    const e = await expectFormatError(importToStore(late, join(tmp.dir(), 'late')), 'NON_NUMERIC_FIELD', {
      file: late,
      line: 2,
    })
    expect(e.message).toContain("the first line's picture id was one")
    const cases: Array<[string, Buffer]> = [
      ['long.txt', Buffer.from(`a 0 0 1\n${'b'.repeat(1025)} 0 0 1\n`)],
      [
        'latin1.txt',
        Buffer.concat([Buffer.from('a 0 0 1\n'), Buffer.from([0x63, 0xe9]), Buffer.from(' 0 0 1\n')]),
      ],
      ['control.txt', Buffer.from('a 0 0 1\nb\u0001c 0 0 1\n')],
    ]
    for (const [name, bytes] of cases) {
      const file = await tmp.write(name, bytes)
      await expectFormatError(importToStore(file, join(tmp.dir(), `${name}-store`)), 'BAD_PICTURE_NAME', {
        file,
        line: 2,
      })
    }
    expect((await readdir(tmp.dir())).filter((f) => f.includes('store') || f.includes('.tmp-'))).toEqual([
      'ints-store',
      'mixed-store',
      'names-store',
    ])
  })

  it('convert writes OUT.picture-names.txt and removes a stale one; detection accepts a name id', async () => {
    const file = await tmp.write('conv-names', 'cat.jpg 0 0 0.5 1.5\ndog.jpg 0 0 2 3\n')
    expect(await detectFormat(file)).toBe('hog-text')
    const out = join(tmp.dir(), 'conv.npy')
    await convertToNpy(file, out, { format: 'hog-text' })
    expect(await readdir(tmp.dir())).toContain('conv.picture-names.txt')
    expect(pictureNamesPathFor(out)).toBe(join(tmp.dir(), 'conv.picture-names.txt'))
    await convertToNpy(await tmp.write('conv-ints.txt', '1 0 0 0.5 1.5\n'), out)
    expect((await readdir(tmp.dir())).filter((f) => f.startsWith('conv.'))).toEqual([
      'conv.ids.npy',
      'conv.npy',
    ])
  })
})
