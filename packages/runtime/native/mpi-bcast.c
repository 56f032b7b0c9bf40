/*
 * MPI_Bcast of BYTES bytes from rank 0, REPEAT times after one warm-up: the peer that
 * `codebook lab bench broadcast --peer mpi` times beside the runtime's broadcasts. Each round
 * starts at a barrier; its time is the slowest rank's (MPI_Reduce of the maximum). Rank 0
 * prints one JSON line per round: {"seconds": S}.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: mpi-bcast BYTES REPEAT\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long long bytes = atoll(argv[1]);
  int repeat = atoi(argv[2]);
  if (bytes < 1 || bytes > 2147483647LL || repeat < 1) {
    if (rank == 0) fprintf(stderr, "BYTES must be 1 … 2^31 − 1 and REPEAT ≥ 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buffer = malloc((size_t)bytes);
  if (!buffer) MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank == 0) memset(buffer, 7, (size_t)bytes);
  for (int round = -1; round < repeat; round++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    MPI_Bcast(buffer, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    double mine = MPI_Wtime() - start, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0 && round >= 0) {
      printf("{\"seconds\":%.6f}\n", slowest);
      fflush(stdout);
    }
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
