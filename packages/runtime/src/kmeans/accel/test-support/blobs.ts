// The generator moved to kmeans/bench-data.ts (the bench command needs it in the build); tests keep this path.
export { type BlobOptions, generateBlobs } from '../../bench-data.ts'
