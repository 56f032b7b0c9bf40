import type { Topology, TopologyRecord } from '@codebook/shared'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import {
  createTopology,
  deleteTopology,
  getTopology,
  listTopologies,
  listTopologyVersions,
  saveTopologyVersion,
} from './topology-client.ts'

/** Query keys of the Topology area. */
export const topologyKeys = {
  all: ['topologies'] as const,
  one: (id: string, version: number | null) => ['topologies', id, 'version', version ?? 'latest'] as const,
  versions: (id: string) => ['topologies', id, 'versions'] as const,
}

/** Every stored topology (summaries). */
export function useTopologies() {
  return useQuery({ queryKey: topologyKeys.all, queryFn: listTopologies })
}

/** One topology: the latest version when `version` is null. */
export function useTopology(id: string, version: number | null) {
  return useQuery({
    queryKey: topologyKeys.one(id, version),
    queryFn: () => getTopology(id, version ?? undefined),
    // Versions are immutable, and the latest is replaced by this page's own saves (setQueryData).
    // No background refetch: a newer version saved elsewhere would re-mount the editor and drop
    // unsaved edits; the version picker lists it instead.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    // Opening the page does fetch the latest afresh (nothing is being edited yet).
    refetchOnMount: version === null ? 'always' : false,
  })
}

/** A topology's versions, newest first (nothing while `id` is null: an unsaved topology). */
export function useTopologyVersions(id: string | null) {
  return useQuery({
    queryKey: topologyKeys.versions(id ?? ''),
    queryFn: () => listTopologyVersions(id ?? ''),
    enabled: id !== null,
  })
}

/** Saves a topology: a new one (`id` null → version 1) or the next version of `id`. */
export function useSaveTopology() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (v: { id: string | null; topology: Topology; message?: string }): Promise<TopologyRecord> =>
      v.id === null
        ? createTopology(v.topology, v.message)
        : saveTopologyVersion(v.id, v.topology, v.message),
    onSuccess: (record) => {
      queryClient.setQueryData(topologyKeys.one(record.id, record.version), record)
      queryClient.setQueryData(topologyKeys.one(record.id, null), record)
      void queryClient.invalidateQueries({ queryKey: topologyKeys.versions(record.id) })
      void queryClient.invalidateQueries({ queryKey: topologyKeys.all, exact: true })
    },
  })
}

/** Deletes a topology and refreshes the list. */
export function useDeleteTopology() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteTopology,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: topologyKeys.all }),
  })
}
