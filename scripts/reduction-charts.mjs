#!/usr/bin/env node
// Draws the reduction study's charts (docs/img/reductions-*.svg) from the JSON lines that
// `codebook study reductions --json` printed into docs/data/ (scripts/reduction-study.sh).
// Plain SVG text: no dependency, the same bytes for the same data.
import { readFileSync, writeFileSync } from 'node:fs'

const root = new URL('..', import.meta.url)
const readLines = (name) =>
  readFileSync(new URL(`docs/data/${name}`, root), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
const write = (name, svg) => writeFileSync(new URL(`docs/img/${name}`, root), svg)

const algorithms = ['binomial', 'fibonacci', 'tree-dyn', 'noncommut-tree-dyn']
const names = {
  binomial: 'Binomial-stat',
  fibonacci: 'Fibonacci-stat',
  'tree-dyn': 'Tree-dyn',
  'noncommut-tree-dyn': 'Non-Commut-Tree-dyn',
}
const colours = {
  binomial: '#1f77b4',
  fibonacci: '#d62728',
  'tree-dyn': '#2ca02c',
  'noncommut-tree-dyn': '#9467bd',
}
const font = 'font-family="sans-serif" font-size="12"'
const titleFont = 'font-family="sans-serif" font-size="14"'
const f = (x) => Number(x.toFixed(2))

/** A log10 scale from [lo, hi] to [a, b]. */
const logScale = (lo, hi, a, b) => (x) =>
  a + ((Math.log10(x) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (b - a)

/** An SVG document; `title` is its accessible name (biome's a11y lint asks for one). */
function svg(width, height, title, body) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">\n<title>${title}</title>\n<rect width="100%" height="100%" fill="white"/>\n${body.join('\n')}\n</svg>\n`
}

/** Figure 3: mean makespan with its 10–90 % band per algorithm, against CV (both axes log). */
function figure3(rows) {
  const [W, H, left, right, top, bottom] = [760, 460, 70, 190, 56, 60]
  const cvs = [...new Set(rows.map((r) => r.cv))].sort((a, b) => a - b)
  const yLo = 10 ** Math.floor(Math.log10(Math.min(...rows.map((r) => r.q10))))
  const yHi = 10 ** Math.ceil(Math.log10(Math.max(...rows.map((r) => r.q90))))
  const x = logScale(cvs[0], cvs[cvs.length - 1], left, W - right)
  const y = logScale(yLo, yHi, H - bottom, top)
  const body = [
    `<text x="${left}" y="20" ${titleFont}>Makespan of a reduction of n = ${rows[0].n} values, μd = 1, μc = ${rows[0].muC}</text>`,
    `<text x="${left}" y="38" ${font}>mean (line) and 10–90 % band (dashed) of ${rows[0].runs} random instances per point</text>`,
    `<line x1="${left}" y1="${H - bottom}" x2="${W - right}" y2="${H - bottom}" stroke="black"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${H - bottom}" stroke="black"/>`,
    `<text x="${(left + W - right) / 2}" y="${H - 15}" ${font} text-anchor="middle">coefficient of variation of the costs (log)</text>`,
    `<text x="18" y="${(top + H - bottom) / 2}" ${font} text-anchor="middle" transform="rotate(-90 18 ${(top + H - bottom) / 2})">makespan, units of μd (log)</text>`,
  ]
  for (const cv of cvs)
    body.push(
      `<line x1="${f(x(cv))}" y1="${H - bottom}" x2="${f(x(cv))}" y2="${H - bottom + 5}" stroke="black"/>`,
      `<text x="${f(x(cv))}" y="${H - bottom + 18}" ${font} text-anchor="middle">${cv}</text>`,
    )
  for (let e = Math.log10(yLo); e <= Math.log10(yHi); e++)
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e
      if (v < yLo || v > yHi) continue
      body.push(
        `<line x1="${left}" y1="${f(y(v))}" x2="${W - right}" y2="${f(y(v))}" stroke="#ddd"/>`,
        `<text x="${left - 6}" y="${f(y(v)) + 4}" ${font} text-anchor="end">${v}</text>`,
      )
    }
  algorithms.forEach((a, i) => {
    const series = rows.filter((r) => r.algorithm === a).sort((p, q) => p.cv - q.cv)
    if (series.length === 0) return
    const band = [
      ...series.map((r) => `${f(x(r.cv))},${f(y(r.q90))}`),
      ...series.reverse().map((r) => `${f(x(r.cv))},${f(y(r.q10))}`),
    ]
    series.reverse()
    body.push(
      `<polygon points="${band.join(' ')}" fill="${colours[a]}" fill-opacity="0.05" stroke="none"/>`,
      // The bands overlap where the algorithms agree (CV 10): dashed edges keep each readable.
      ...['q10', 'q90'].map(
        (q) =>
          `<polyline points="${series.map((r) => `${f(x(r.cv))},${f(y(r[q]))}`).join(' ')}" fill="none" stroke="${colours[a]}" stroke-width="1" stroke-dasharray="4 3"/>`,
      ),
      `<polyline points="${series.map((r) => `${f(x(r.cv))},${f(y(r.mean))}`).join(' ')}" fill="none" stroke="${colours[a]}" stroke-width="2"/>`,
      ...series.map((r) => `<circle cx="${f(x(r.cv))}" cy="${f(y(r.mean))}" r="3" fill="${colours[a]}"/>`),
      `<line x1="${W - right + 15}" y1="${top + 20 * i + 6}" x2="${W - right + 35}" y2="${top + 20 * i + 6}" stroke="${colours[a]}" stroke-width="3"/>`,
      `<text x="${W - right + 40}" y="${top + 20 * i + 10}" ${font}>${names[a]}</text>`,
    )
  })
  return svg(W, H, 'Figure 3: reduction makespan against CV, per algorithm', body)
}

/** A diverging colour for a ratio r (log scale, 1 = white, > 1 red, < 1 blue, saturating at ×2). */
function ratioColour(r) {
  const t = Math.max(-1, Math.min(1, Math.log2(r)))
  const fade = (c) => Math.round(255 - (255 - c) * Math.abs(t))
  return t >= 0 ? `rgb(${fade(214)},${fade(39)},${fade(40)})` : `rgb(${fade(31)},${fade(119)},${fade(180)})`
}

/** Figure 4: two heat maps over CV × μc/μd: Fibonacci-stat / Tree-dyn, and the best method. */
function figure4(rows) {
  const cvs = [...new Set(rows.map((r) => r.cv))].sort((a, b) => a - b)
  const ratios = [...new Set(rows.map((r) => r.muC))].sort((a, b) => a - b)
  const [cell, left, top, gap] = [24, 70, 50, 130]
  const mapWidth = cvs.length * cell
  const W = left + 2 * mapWidth + gap + 170
  const H = top + ratios.length * cell + 70
  const body = [
    `<text x="${left}" y="22" ${titleFont}>n = ${rows[0].n}, ${rows[0].runs} runs a cell. Left: mean Fibonacci-stat / mean Tree-dyn. Right: the lowest mean.</text>`,
  ]
  for (const [m, x0] of [
    [0, left],
    [1, left + mapWidth + gap],
  ]) {
    for (const r of rows) {
      const cx = x0 + cvs.indexOf(r.cv) * cell
      const cy = top + (ratios.length - 1 - ratios.indexOf(r.muC)) * cell
      const fill = m === 0 ? ratioColour(r.fibonacciOverTreeDyn) : colours[r.best]
      const label =
        m === 0
          ? `<title>cv ${r.cv}, μc/μd ${r.muC}: ${r.fibonacciOverTreeDyn.toFixed(3)}</title>`
          : `<title>cv ${r.cv}, μc/μd ${r.muC}: ${names[r.best]}</title>`
      body.push(`<rect x="${cx}" y="${cy}" width="${cell}" height="${cell}" fill="${fill}">${label}</rect>`)
      if (m === 0 && cvs.indexOf(r.cv) % 2 === 0 && ratios.indexOf(r.muC) % 2 === 0)
        body.push(
          `<text x="${cx + cell / 2}" y="${cy + cell / 2 + 3}" font-family="sans-serif" font-size="8" text-anchor="middle">${r.fibonacciOverTreeDyn.toFixed(2)}</text>`,
        )
    }
    cvs.forEach((cv, i) => {
      if (i % 4 === 0)
        body.push(
          `<text x="${x0 + i * cell + cell / 2}" y="${top + ratios.length * cell + 15}" ${font} text-anchor="middle">${cv}</text>`,
        )
    })
    ratios.forEach((v, j) => {
      if (j % 4 === 0)
        body.push(
          `<text x="${x0 - 5}" y="${top + (ratios.length - 1 - j) * cell + cell / 2 + 4}" ${font} text-anchor="end">${v}</text>`,
        )
    })
    body.push(
      `<text x="${x0 + mapWidth / 2}" y="${top + ratios.length * cell + 35}" ${font} text-anchor="middle">CV (log)</text>`,
      `<text x="${x0 - 45}" y="${top + (ratios.length * cell) / 2}" ${font} text-anchor="middle" transform="rotate(-90 ${x0 - 45} ${top + (ratios.length * cell) / 2})">μc / μd (log)</text>`,
    )
  }
  const legendX = left + 2 * mapWidth + gap + 15
  for (const [i, a] of algorithms.entries())
    body.push(
      `<rect x="${legendX}" y="${top + 20 * i}" width="14" height="14" fill="${colours[a]}"/>`,
      `<text x="${legendX + 20}" y="${top + 20 * i + 11}" ${font}>${names[a]}</text>`,
    )
  for (const [i, r] of [0.5, 0.75, 1, 1.5, 2].entries())
    body.push(
      `<rect x="${legendX}" y="${top + 110 + 20 * i}" width="14" height="14" fill="${ratioColour(r)}" stroke="#999"/>`,
      `<text x="${legendX + 20}" y="${top + 121 + 20 * i}" ${font}>ratio ${r}</text>`,
    )
  return svg(W, H, 'Figure 4: Fibonacci-stat over Tree-dyn, and the best algorithm, over CV and μc/μd', body)
}

/**
 * Section 3: Tree-dyn's simulated mean against the derived closed form and the paper's, per n,
 * as a relative gap in %, with ±2 standard errors of the simulation around 0. The paper's gap
 * at small n runs off the bottom: those points sit on the edge, labelled with their value.
 */
function markov(rows) {
  const [W, H, left, right, top, bottom] = [820, 420, 70, 270, 56, 60]
  const [yMin, yMax] = [-8, 2]
  const ns = rows.map((r) => r.n)
  const gap = (r, v) => ((r.simulatedMean - v) / v) * 100
  const x = logScale(ns[0], ns[ns.length - 1], left, W - right)
  const y = (v) => top + ((yMax - Math.max(yMin, Math.min(yMax, v))) / (yMax - yMin)) * (H - top - bottom)
  const twoSe = (r) => ((2 * Math.sqrt(r.formulaVariance / r.runs)) / r.formulaMean) * 100
  const body = [
    `<text x="${left}" y="20" ${titleFont}>Tree-dyn, exponential costs (μd = 1), μc = 0: simulated mean vs closed forms</text>`,
    `<text x="${left}" y="38" ${font}>(simulated − formula) / formula in %, ${rows[0].runs} runs per n; grey: ±2 standard errors</text>`,
    `<polygon points="${[...rows.map((r) => `${f(x(r.n))},${f(y(twoSe(r)))}`), ...[...rows].reverse().map((r) => `${f(x(r.n))},${f(y(-twoSe(r)))}`)].join(' ')}" fill="#999" fill-opacity="0.3"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${H - bottom}" stroke="black"/>`,
    `<text x="${(left + W - right) / 2}" y="${H - 15}" ${font} text-anchor="middle">n (log)</text>`,
    `<text x="18" y="${(top + H - bottom) / 2}" ${font} text-anchor="middle" transform="rotate(-90 18 ${(top + H - bottom) / 2})">gap, %</text>`,
  ]
  for (let v = yMin; v <= yMax; v += 1)
    body.push(
      `<line x1="${left}" y1="${f(y(v))}" x2="${W - right}" y2="${f(y(v))}" stroke="${v === 0 ? 'black' : '#eee'}"/>`,
      `<text x="${left - 6}" y="${f(y(v)) + 4}" ${font} text-anchor="end">${v}</text>`,
    )
  for (const n of ns)
    body.push(`<text x="${f(x(n))}" y="${H - bottom + 18}" ${font} text-anchor="middle">${n}</text>`)
  const series = [
    ['derived: Σ 1/⌊m/2⌋ = 2H(n/2) − 2/n', '#2ca02c', (r) => gap(r, r.formulaMean)],
    [
      "paper's 2H(n/2) + 2/n",
      '#d62728',
      (r) => (r.paperFormulaMean === null ? null : gap(r, r.paperFormulaMean)),
    ],
  ]
  for (const [i, [label, colour, value]] of series.entries()) {
    const points = rows.map((r) => [r.n, value(r)]).filter(([, v]) => v !== null)
    body.push(
      `<polyline points="${points.map(([n, v]) => `${f(x(n))},${f(y(v))}`).join(' ')}" fill="none" stroke="${colour}" stroke-width="2"/>`,
      ...points.map(([n, v]) => `<circle cx="${f(x(n))}" cy="${f(y(v))}" r="3" fill="${colour}"/>`),
      ...points
        .filter(([, v]) => v < yMin)
        .map(
          ([n, v]) =>
            `<text x="${f(x(n)) + 6}" y="${f(y(v)) - 6}" ${font} fill="${colour}">${v.toFixed(0)} %</text>`,
        ),
      `<line x1="${W - right + 10}" y1="${top + 20 * i + 6}" x2="${W - right + 30}" y2="${top + 20 * i + 6}" stroke="${colour}" stroke-width="3"/>`,
      `<text x="${W - right + 35}" y="${top + 20 * i + 10}" ${font}>${label}</text>`,
    )
  }
  return svg(W, H, 'Section 3: Tree-dyn simulated mean against the closed forms', body)
}

write('reductions-figure3.svg', figure3(readLines('reductions-figure3.jsonl')))
write('reductions-figure4.svg', figure4(readLines('reductions-figure4.jsonl')))
write('reductions-markov.svg', markov(readLines('reductions-markov.jsonl')))
