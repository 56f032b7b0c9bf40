# Sourced by the anchor scripts. OpenBLAS picks its kernels from the CPU model name; on a VM
# reporting a generic "Intel Xeon Processor" it falls back to Prescott (SSE3) kernels and
# scikit-learn / FAISS run ~2.5x slower. Choose the kernels from the CPU flags instead, so the
# anchors run at their best (a value already set is kept).
if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
  if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell; fi
fi
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-<auto>}" >&2
