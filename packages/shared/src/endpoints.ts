/**
 * Paths and headers outside `/api` that server and web must agree on. The REST routes under
 * `/api` are described by their schemas and the OpenAPI document instead.
 */

/** The tus endpoint: `POST` creates an upload, `PATCH <TUS_PATH>/<id>` sends its chunks. */
export const TUS_PATH = '/files'

/** Response header of the finishing tus `PATCH`: the id of the dataset the upload became. */
export const DATASET_ID_HEADER = 'Codebook-Dataset-Id'

/** socket.io's HTTP path (its default; named so server and clients say it once — the Vite dev proxy restates it). */
export const SOCKET_IO_PATH = '/socket.io'
