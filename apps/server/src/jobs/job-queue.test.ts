import { describe, expect, it } from 'vitest'
import { quietLog } from '../test-support/quiet-log.ts'
import { createJobQueue, type JobKind, type JobStopped } from './job-queue.ts'
import { createRequestQueue } from './request-queue.ts'

/** A job that runs until released or stopped, noting what happened to it. */
function gatedKind(concurrency: number, extra: Partial<JobKind> = {}) {
  const events: string[] = []
  const gates = new Map<string, () => void>()
  const kind: JobKind = {
    name: 'test job',
    concurrency,
    closedError: () => new Error('closed'),
    async run(id, signal) {
      events.push(`start ${id}`)
      await new Promise<void>((resolve) => {
        gates.set(id, resolve)
        signal.addEventListener('abort', () => resolve(), { once: true })
      })
      events.push(signal.aborted ? `${(signal.reason as JobStopped).why} ${id}` : `end ${id}`)
    },
    dropped(id, stop) {
      events.push(`dropped ${stop.why} ${id}`)
    },
    ...extra,
  }
  const release = (id: string) => gates.get(id)!()
  return { kind, events, release }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('job queue', () => {
  it('runs at most `concurrency` jobs, in arrival order, and refuses more than maxQueued waiting', async () => {
    const { kind, events, release } = gatedKind(2, {
      maxQueued: 2,
      queueFull: (n) => Object.assign(new Error(`${n} waiting`), { code: 'FULL' }),
    })
    const queue = createJobQueue(kind, quietLog())
    queue.submit('a')
    expect(() => queue.submit('a')).toThrow('already queued')
    for (const id of ['b', 'c', 'd']) queue.submit(id)
    expect(() => queue.submit('e')).toThrow('2 waiting')
    expect(() => queue.ensureRoom()).toThrow('2 waiting')
    await tick()
    expect(events).toEqual(['start a', 'start b'])
    expect(queue.size()).toEqual({ queued: 2, running: 2 })
    expect([queue.state('a'), queue.state('c'), queue.state('z')]).toEqual(['running', 'queued', undefined])

    release('b')
    await queue.settled('b')
    await tick()
    expect(events).toEqual(['start a', 'start b', 'end b', 'start c'])
    release('a')
    release('c')
    await Promise.all(['a', 'c'].map((id) => queue.settled(id)))
    await tick()
    release('d')
    await queue.settled('d')
    expect(events.filter((e) => e.startsWith('start'))).toEqual(['start a', 'start b', 'start c', 'start d'])
    expect(queue.size()).toEqual({ queued: 0, running: 0 })
    await queue.settled('never-submitted')
  })

  it('cancels a waiting job without running it and a running one through its signal', async () => {
    const { kind, events } = gatedKind(1)
    const queue = createJobQueue(kind, quietLog())
    queue.submit('a')
    queue.submit('b')
    queue.submit('c')
    await tick()
    expect(await queue.cancel('b')).toBe(true)
    expect(events).toEqual(['start a', 'dropped cancelled b'])
    expect(await queue.cancel('a')).toBe(true)
    // The freed place goes to the next waiting job at once; the cancelled one never ran.
    expect(events).toEqual(['start a', 'dropped cancelled b', 'cancelled a', 'start c'])
    expect(await queue.cancel('a')).toBe(false)
    expect(queue.state('c')).toBe('running')
    expect(queue.state('b')).toBeUndefined()
    await queue.close()
  })

  it('on close drops waiting jobs and interrupts running ones, then refuses work; start queues recovered ids first', async () => {
    let recovered = 0
    const { kind, events } = gatedKind(1, {
      recover: async () => {
        recovered++
        return ['old-1', 'old-2']
      },
    })
    const queue = createJobQueue(kind, quietLog())
    await queue.start()
    queue.submit('new')
    await tick()
    expect(recovered).toBe(1)
    expect(events).toEqual(['start old-1'])
    await queue.close()
    expect(events).toEqual([
      'start old-1',
      'dropped interrupted old-2',
      'dropped interrupted new',
      'interrupted old-1',
    ])
    expect(() => queue.submit('later')).toThrow('closed')
    expect(queue.size()).toEqual({ queued: 0, running: 0 })
  })

  it('keeps running after a job that throws', async () => {
    const queue = createJobQueue(
      {
        name: 'failing job',
        concurrency: 1,
        closedError: () => new Error('closed'),
        run: async (id) => {
          if (id === 'bad') throw new Error('boom')
        },
      },
      quietLog(),
    )
    queue.submit('bad')
    queue.submit('good')
    await queue.settled('good')
    expect(queue.size()).toEqual({ queued: 0, running: 0 })
  })
})

describe('request queue', () => {
  it('resolves each request with its own result in order, and refuses waiting and running requests on close', async () => {
    const order: number[] = []
    const requests = createRequestQueue<number, number>(
      {
        name: 'square',
        concurrency: 1,
        maxQueued: 3,
        queueFull: () => new Error('busy'),
        closedError: () => Object.assign(new Error('closed'), { code: 'CLOSED' }),
        run: (x, signal) =>
          new Promise((resolve, reject) => {
            order.push(x)
            if (x < 0) reject(new Error(`negative ${x}`))
            else if (x === 99) signal.addEventListener('abort', () => reject(signal.reason), { once: true })
            else setTimeout(() => resolve(x * x), 5)
          }),
      },
      quietLog(),
    )
    expect(await Promise.all([requests.perform(2), requests.perform(3)])).toEqual([4, 9])
    await expect(requests.perform(-1)).rejects.toThrow('negative -1')
    const stuck = requests.perform(99)
    const waiting = requests.perform(5)
    await tick()
    await requests.queue.close()
    await expect(stuck).rejects.toMatchObject({ code: 'CLOSED' })
    await expect(waiting).rejects.toMatchObject({ code: 'CLOSED' })
    await expect(requests.perform(1)).rejects.toMatchObject({ code: 'CLOSED' })
    expect(order).toEqual([2, 3, -1, 99])
  })
})
