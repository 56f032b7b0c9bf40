import { hostname } from 'node:os'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultMaxWorkersPerRun, loadConfig } from './config.ts'

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      home: resolve(process.cwd(), '.codebook'),
      databaseUrl: undefined,
      seedDemo: true,
      logLevel: 'info',
      maxUploadBytes: 64 * 1024 ** 3,
      maxConcurrentRuns: 1,
      maxWorkersPerRun: defaultMaxWorkersPerRun(),
      maxQueuedRuns: 100,
      maxReadsPerClient: 16,
      apiToken: undefined,
      allowedOrigins: [],
      allowedHosts: [],
      uploadExpiryMs: 24 * 3600_000,
      maxExpandedBytes: 256 * 1024 ** 3,
      diskReserveBytes: 1024 ** 3,
    })
    expect(config.webDist).toMatch(/apps[/\\]web[/\\]dist$/)
  })

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      CODEBOOK_HOME: '/srv/codebook',
      DATABASE_URL: 'postgres://u:p@db:5432/codebook',
      CODEBOOK_WEB_DIR: '',
      CODEBOOK_SEED_DEMO: 'false',
      LOG_LEVEL: 'debug',
      CODEBOOK_MAX_UPLOAD_BYTES: '1048576',
      CODEBOOK_MAX_CONCURRENT_RUNS: '3',
      CODEBOOK_MAX_WORKERS_PER_RUN: '4',
      CODEBOOK_MAX_QUEUED_RUNS: '7',
      CODEBOOK_MAX_READS_PER_CLIENT: '5',
      CODEBOOK_API_TOKEN: 'a-long-enough-token',
      CODEBOOK_ALLOWED_ORIGINS: 'https://lab.example:8443, http://127.0.0.1:5173',
      CODEBOOK_ALLOWED_HOSTS: 'Codebook.Lab.example,.cluster.internal',
      CODEBOOK_UPLOAD_EXPIRY_HOURS: '2',
      CODEBOOK_MAX_EXPANDED_BYTES: '1073741824',
      CODEBOOK_DISK_RESERVE_BYTES: '2147483648',
      CODEBOOK_JOIN_HOST: '10.1.2.3',
      CODEBOOK_JOIN_TIMEOUT_SECONDS: '90',
      CODEBOOK_SLURM_WORKER: 'codebook  worker',
    })
    expect(config).toEqual({
      port: 0,
      host: '0.0.0.0',
      home: '/srv/codebook',
      databaseUrl: 'postgres://u:p@db:5432/codebook',
      webDist: undefined,
      seedDemo: false,
      logLevel: 'debug',
      maxUploadBytes: 1048576,
      maxConcurrentRuns: 3,
      maxWorkersPerRun: 4,
      maxQueuedRuns: 7,
      maxReadsPerClient: 5,
      apiToken: 'a-long-enough-token',
      allowedOrigins: ['https://lab.example:8443', 'http://127.0.0.1:5173'],
      allowedHosts: ['codebook.lab.example', '.cluster.internal'],
      uploadExpiryMs: 2 * 3600_000,
      maxExpandedBytes: 1073741824,
      diskReserveBytes: 2147483648,
      workerLaunch: {
        joinHost: '10.1.2.3',
        listenHost: '10.1.2.3',
        joinTimeoutMs: 90_000,
        slurmWorker: ['codebook', 'worker'],
      },
    })
  })

  it('derives the default worker cap from the cores: twice their number, at least 2', () => {
    expect(defaultMaxWorkersPerRun(1)).toBe(2)
    expect(defaultMaxWorkersPerRun(2)).toBe(4)
    expect(defaultMaxWorkersPerRun(8)).toBe(16)
    expect(defaultMaxWorkersPerRun(512)).toBe(256)
    expect(loadConfig({ CODEBOOK_MAX_WORKERS_PER_RUN: '32' }).maxWorkersPerRun).toBe(32)
  })

  it('has workers of other hosts join this host by name, listening on every interface, unless given an address', () => {
    expect(loadConfig({}).workerLaunch).toEqual({
      joinHost: hostname(),
      listenHost: '0.0.0.0',
      joinTimeoutMs: 600_000,
      slurmWorker: undefined,
    })
    expect(loadConfig({ CODEBOOK_JOIN_HOST: 'head.cluster' }).workerLaunch.listenHost).toBe('0.0.0.0')
    expect(() => loadConfig({ CODEBOOK_JOIN_HOST: 'a b' })).toThrow(/CODEBOOK_JOIN_HOST/)
  })

  it('answers to a HOST given by name without listing it in CODEBOOK_ALLOWED_HOSTS', () => {
    expect(loadConfig({ HOST: 'Codebook.lab' }).allowedHosts).toEqual(['codebook.lab'])
    expect(loadConfig({ HOST: '0.0.0.0' }).allowedHosts).toEqual([])
  })

  it('rejects bad values with CONFIG_INVALID naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }))
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT/)
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/)
    expect(() => loadConfig({ CODEBOOK_SEED_DEMO: 'maybe' })).toThrow(/CODEBOOK_SEED_DEMO/)
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/)
    expect(() => loadConfig({ CODEBOOK_MAX_UPLOAD_BYTES: '-1' })).toThrow(/CODEBOOK_MAX_UPLOAD_BYTES/)
    expect(() => loadConfig({ CODEBOOK_MAX_CONCURRENT_RUNS: '0' })).toThrow(/CODEBOOK_MAX_CONCURRENT_RUNS/)
    expect(() => loadConfig({ CODEBOOK_ALLOWED_ORIGINS: 'https://x.org/path' })).toThrow(
      /CODEBOOK_ALLOWED_ORIGINS/,
    )
    expect(() => loadConfig({ CODEBOOK_ALLOWED_HOSTS: 'http://x.org' })).toThrow(/CODEBOOK_ALLOWED_HOSTS/)
    expect(() => loadConfig({ CODEBOOK_ALLOWED_HOSTS: 'x.org:8080' })).toThrow(/CODEBOOK_ALLOWED_HOSTS/)
    expect(() => loadConfig({ CODEBOOK_UPLOAD_EXPIRY_HOURS: '0' })).toThrow(/CODEBOOK_UPLOAD_EXPIRY_HOURS/)
    expect(() => loadConfig({ CODEBOOK_MAX_EXPANDED_BYTES: '0' })).toThrow(/CODEBOOK_MAX_EXPANDED_BYTES/)
    expect(() => loadConfig({ CODEBOOK_MAX_EXPANDED_BYTES: '1.5' })).toThrow(/CODEBOOK_MAX_EXPANDED_BYTES/)
    expect(() => loadConfig({ CODEBOOK_API_TOKEN: 'short' })).toThrow(
      /CODEBOOK_API_TOKEN: must be at least 16/,
    )
  })
})
