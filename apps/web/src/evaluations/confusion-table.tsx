import { confusionCellColour, confusionCellDark, normaliseConfusion } from './confusion.ts'
import { className } from './evaluation-format.ts'

/**
 * The confusion matrix of one k as a coloured table: rows are true classes, columns predictions;
 * each cell shows the count and is shaded by its share of the row (blue: right, red: wrong).
 */
export function ConfusionTable(props: { confusion: number[][]; classes: string[] }) {
  const { confusion, classes } = props
  const norm = normaliseConfusion(confusion)
  // Class names are unique (folder names, or grid labels), so they key rows and columns.
  const labels = confusion.map((_, i) => ({ i, name: className(classes, i) }))
  return (
    <div className="table-wrap">
      <table className="confusion" aria-label="Confusion matrix">
        <thead>
          <tr>
            <th className="confusion-corner" scope="col">
              true ↓ · predicted →
            </th>
            {labels.map((c) => (
              <th key={c.name} scope="col" className="num">
                {c.name}
              </th>
            ))}
            <th scope="col" className="num confusion-total">
              n
            </th>
          </tr>
        </thead>
        <tbody>
          {labels.map(({ i, name }) => {
            const row = confusion[i] ?? []
            return (
              <tr key={name}>
                <th scope="row" className="num">
                  {name}
                </th>
                {labels.map(({ i: j, name: predicted }) => {
                  const count = row[j] ?? 0
                  const f = norm[i]?.[j] ?? null
                  return (
                    <td
                      key={predicted}
                      className={`num${i === j ? ' confusion-diagonal' : ''}${confusionCellDark(f, i === j) ? ' confusion-dark' : ''}`}
                      style={{ background: confusionCellColour(f, i === j) }}
                      title={`true ${name}, predicted ${predicted}: ${count}${f === null ? '' : ` (${(f * 100).toFixed(1)}% of the row)`}`}
                      data-count={count}
                    >
                      {count === 0 ? '' : count}
                    </td>
                  )
                })}
                <td className="num confusion-total">{row.reduce((s, v) => s + v, 0)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
