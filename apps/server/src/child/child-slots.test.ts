import { describe, expect, it } from 'vitest'
import { createChildSlots } from './child-slots.ts'

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('createChildSlots', () => {
  it('grants at most size slots, hands a released slot to the first waiter, and drops aborted waiters', async () => {
    const slots = createChildSlots(2)
    const first = await slots.acquire()
    const second = await slots.acquire()
    const order: string[] = []
    const noting = (name: string) => (release: () => void) => {
      order.push(name)
      return release
    }
    const third = slots.acquire().then(noting('third'))
    const aborter = new AbortController()
    const abandoned = slots.acquire(aborter.signal)
    const fourth = slots.acquire().then(noting('fourth'))
    await tick()
    expect(order).toEqual([])
    expect(slots.busy()).toBe(2)

    aborter.abort(new Error('deleted'))
    await expect(abandoned).rejects.toThrow('deleted')
    first()
    first() // a second release of the same slot frees nothing
    const releaseThird = await third
    await tick()
    expect(order).toEqual(['third'])
    expect(slots.busy()).toBe(2)

    second()
    const releaseFourth = await fourth
    expect(order).toEqual(['third', 'fourth'])
    releaseThird()
    releaseFourth()
    expect(slots.busy()).toBe(0)
    await expect(slots.acquire(AbortSignal.abort(new Error('late')))).rejects.toThrow('late')
    expect(slots.busy()).toBe(0)
  })
})
