import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useState } from 'react'
import { queryKeys, useDatasets } from '../api/queries.ts'
import { useTokenStatusStore } from '../components/token-banner.tsx'
import { DatasetTable } from './dataset-table.tsx'
import { UploadPanel } from './upload-panel.tsx'
import { useTusUpload } from './use-tus-upload.ts'

/** `/datasets`: upload card and the table of datasets. */
export function DatasetsPage() {
  const queryClient = useQueryClient()
  const [createdId, setCreatedId] = useState<string | null>(null)
  const onDatasetCreated = useCallback(
    (id: string) => {
      setCreatedId(id)
      void queryClient.invalidateQueries({ queryKey: queryKeys.datasets })
    },
    [queryClient],
  )
  const tokenStatus = useTokenStatusStore()
  // The upload card says a refusal itself: the token banner only turns on.
  const upload = useTusUpload(onDatasetCreated, (code) => tokenStatus.reportRefusal(code))
  const datasets = useDatasets()

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Datasets</h1>
          <p className="page-subtitle">Feature vectors to cluster: upload, inspect, delete.</p>
        </div>
      </header>
      <UploadPanel upload={upload} datasets={datasets.data ?? []} />
      <section className="card" aria-label="Datasets">
        <div className="card-header">
          <h2>All datasets</h2>
          {datasets.data && <span className="card-subtitle num">{datasets.data.length} total</span>}
        </div>
        {datasets.isPending ? (
          <div className="loading">Loading datasets…</div>
        ) : datasets.data ? (
          <DatasetTable datasets={datasets.data} highlightId={createdId} />
        ) : (
          <div className="empty">Could not load datasets.</div>
        )}
      </section>
    </div>
  )
}
