import type { Topology } from '@codebook/shared'
import { NumberField, TextField } from './fields.tsx'
import type { Apply } from './inspector.tsx'
import { addSite, removeSite, setSiteLink, siteMatrices, updateSite } from './topology-edit.ts'

/**
 * The sites view: each site's name and coordinates, and the site-to-site bandwidth (Gbit/s) and
 * latency (ms) matrices as editable tables (row = from, column = to; asymmetric allowed).
 */
export function SitesView(props: { topology: Topology; apply: Apply; token: number }) {
  const { topology: t, apply, token } = props
  const m = siteMatrices(t)
  return (
    <div className="topo-sites">
      <div className="card-header">
        <h3>Sites</h3>
        <button type="button" className="btn" onClick={() => apply(addSite(t))}>
          Add site
        </button>
      </div>
      <div className="table-wrap">
        <table className="table table-compact topo-site-table" aria-label="Sites">
          <thead>
            <tr>
              <th>Name</th>
              <th>Latitude</th>
              <th>Longitude</th>
              <th className="num">Racks</th>
              <th className="num">Nodes</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {t.sites.map((s, i) => (
              // Index keys: a rename must not remount the row (and drop the input's focus).
              // biome-ignore lint/suspicious/noArrayIndexKey: sites are addressed by position here
              <tr key={i}>
                <td>
                  <TextField
                    id={`site-${i}-name`}
                    label={`Site ${i + 1} name`}
                    className="field-bare"
                    value={s.name}
                    onCommit={(name) => apply(updateSite(t, i, { name }), `site-name-${i}@${token}`)}
                  />
                </td>
                <td>
                  <NumberField
                    id={`site-${i}-lat`}
                    label={`Site ${i + 1} latitude`}
                    className="field-bare"
                    optional
                    value={s.latitude}
                    onCommit={(v) => apply(updateSite(t, i, { latitude: v }), `site-lat-${i}@${token}`)}
                  />
                </td>
                <td>
                  <NumberField
                    id={`site-${i}-lon`}
                    label={`Site ${i + 1} longitude`}
                    className="field-bare"
                    optional
                    value={s.longitude}
                    onCommit={(v) => apply(updateSite(t, i, { longitude: v }), `site-lon-${i}@${token}`)}
                  />
                </td>
                <td className="num">{s.racks.length}</td>
                <td className="num">{s.racks.reduce((sum, r) => sum + r.nodes.length, 0)}</td>
                <td>
                  <button
                    type="button"
                    className="btn btn-ghost"
                    disabled={t.sites.length < 2}
                    onClick={() => apply(removeSite(t, i))}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {t.sites.length < 2 ? (
        <p className="muted">One site: there are no site-to-site links. Add a site to edit the matrices.</p>
      ) : (
        <div className="topo-matrices">
          {(['bandwidthGbps', 'latencyMs'] as const).map((key) => (
            <div key={key}>
              <h4>{key === 'bandwidthGbps' ? 'Bandwidth, Gbit/s' : 'Latency, ms'} (row → column)</h4>
              <table className="table table-compact topo-matrix" aria-label={`Site ${key}`}>
                <thead>
                  <tr>
                    <th>from \ to</th>
                    {t.sites.map((s) => (
                      <th key={s.name}>{s.name}</th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {m[key].map((row, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: matrix rows are positions
                    <tr key={i}>
                      <th>{t.sites[i]?.name}</th>
                      {row.map((v, j) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: matrix cells are positions
                        <td key={j} className={i === j ? 'topo-matrix-diag' : undefined}>
                          <NumberField
                            id={`${key}-${i}-${j}`}
                            label={`${key} from ${t.sites[i]?.name} to ${t.sites[j]?.name}`}
                            className="field-bare"
                            value={v}
                            onCommit={(x) =>
                              x !== undefined &&
                              apply(setSiteLink(t, key, i, j, x), `${key}-${i}-${j}@${token}`)
                            }
                          />
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
        </div>
      )}
    </div>
  )
}
