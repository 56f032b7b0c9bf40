import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import * as contracts from './index.ts'

/**
 * The server encodes every response through its schema (fastify-type-provider-zod), and a one-way
 * transform (`z.preprocess`, `.transform`) cannot be encoded: such a schema inside a response was
 * a 500 for every `POST /api/runs`. Old names are read with codecs (`AggregationField`), which
 * encode; no exported schema holds a one-way transform.
 */
const requestOnly = new Set<string>()

/** The internal definition zod 4 keeps for every schema (the parts walked here). */
interface Def {
  type: string
  in?: z.ZodType
  out?: z.ZodType
  innerType?: z.ZodType
  shape?: Record<string, z.ZodType>
  element?: z.ZodType
  options?: z.ZodType[]
  items?: z.ZodType[]
  rest?: z.ZodType | null
  keyType?: z.ZodType
  valueType?: z.ZodType
  left?: z.ZodType
  right?: z.ZodType
}

/** Paths (`.params.aggregation`) of the one-way transforms inside `schema`. */
function oneWayTransforms(schema: z.ZodType, path = ''): string[] {
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def
  if (def.type === 'transform') return [path || '(root)']
  const parts: Array<[string, z.ZodType | null | undefined]> = [
    ['', def.in],
    ['', def.out],
    ['', def.innerType],
    ['[]', def.element],
    ['[]', def.rest],
    ['{key}', def.keyType],
    ['{value}', def.valueType],
    ['', def.left],
    ['', def.right],
    ...Object.entries(def.shape ?? {}).map(([key, s]): [string, z.ZodType] => [`.${key}`, s]),
    ...(def.options ?? []).map((s, i): [string, z.ZodType] => [`|${i}`, s]),
    ...(def.items ?? []).map((s, i): [string, z.ZodType] => [`[${i}]`, s]),
  ]
  return parts.flatMap(([step, s]) => (s ? oneWayTransforms(s, path + step) : []))
}

function isSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value
}

describe('response schemas', () => {
  const schemas = Object.entries(contracts as Record<string, unknown>).filter(
    (entry): entry is [string, z.ZodType] => isSchema(entry[1]),
  )

  it('finds the schemas and the transforms it is meant to find', () => {
    expect(schemas.length).toBeGreaterThan(50)
    const planted = z.object({ a: z.object({ b: z.string().transform((v) => v.length) }) })
    expect(oneWayTransforms(planted)).toEqual(['.a.b'])
    // The old aggregation name is read by a codec, which encodes both ways.
    expect(oneWayTransforms(contracts.CreateRun)).toEqual([])
    expect(
      contracts.CreateRun.parse({ datasetId: 'd', k: 2, maxIterations: 1, workers: 1, aggregation: 'local' })
        .aggregation,
    ).toBe('three-stage')
    expect(
      z.encode(
        contracts.RunParams,
        contracts.RunParams.parse({ datasetId: 'd', k: 2, maxIterations: 1, workers: 1 }),
      ).aggregation,
    ).toBe('three-stage')
  })

  it('hold no one-way transform outside the request-only schemas', () => {
    const found = schemas
      .filter(([name]) => !requestOnly.has(name))
      .flatMap(([name, schema]) => oneWayTransforms(schema).map((where) => `${name}${where}`))
    expect(found).toEqual([])
  })
})
