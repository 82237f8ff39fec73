// The all-reduce in one kernel per rank over NCCL's symmetric memory (NCCL >= 2.28's device API), for ranks that
// can load and store each other's memory (NVLink or PCIe peer access: NCCL's "LSA" team spans the communicator).
//
// Why a second path: over ncclSend/ncclRecv the reduce-scatter and the all-gather are two NCCL operations with the
// fold between them, and on two GPUs those two transfers alone already take longer than ncclAllReduce's whole
// operation (results/*-multigpu/phases.txt), so no overlap of the fold could reach it. Here NCCL still provides the
// transport — it maps every rank's window into every other rank's address space and supplies the cross-GPU barriers
// — and ReduceLab's kernel moves the bytes itself, with the functor's fold fused into the all-gather's stores.
//
// Every rank r, for each round of at most slot_elems elements of every chunk, each block on its own slice:
//   push:  its copy of chunk q's slice into rank q's window (rank q's reduce-scatter slot for r), for every q != r;
//   (barrier with the same block of every other rank)
//   fold:  chunk r's slice folded in rank order from its own input and the P-1 slots, stored to out and pushed
//          into every other rank's all-gather slot for r;
//   (barrier)
//   copy:  the other ranks' folded slices from its all-gather slots into out.
// A block waits only for the same block on the other ranks, so the grid never synchronizes as a whole. The two
// barriers per round also order the reuse of the slots: a rank writes a peer's slot again only after that peer has
// passed the barrier that follows its last read of it (see the round loop).
//
// A rank that never calls: the per-rank all_reduce first exchanges the lengths (all_reduce_options::verify_lengths,
// on by default) with a timeout, so a missing rank is reported before this kernel is launched. A rank lost after
// that leaves the others' kernels waiting at a barrier: wait() then throws after its timeout, as for NCCL's own
// kernels, but ncclCommAbort does not end this kernel (it is not NCCL's), so that process must exit to free its GPU.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "reducelab/detail/device_properties.hpp"
#include "reducelab/multigpu/communicator.hpp"
#include "reducelab/multigpu/detail/chunking.cuh"
#include "reducelab/multigpu/error.hpp"
#include "reducelab/multigpu/local_group.cuh"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstddef>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#include <nccl_device.h>
#define REDUCELAB_HAS_NCCL_DEVICE_API 1
#else
#define REDUCELAB_HAS_NCCL_DEVICE_API 0
#endif

namespace reducelab::multigpu {

namespace detail {
struct symmetric_rank;  // one rank's part of a symmetric_workspace (defined only with NCCL's device API)
}  // namespace detail

/// Threads per block of the symmetric all-reduce kernel.
inline constexpr int symmetric_block_threads = 512;
/// Bytes of one slot (the most of each chunk one round moves) unless all_reduce_options::symmetric_slot_bytes says
/// otherwise. Measured on two H100s (NV18), float sum, 256 MiB per rank: slots of 1, 2, 4, 8, 16 and 32 MiB took
/// 1569, 1314, 961, 830, 805 and 774 us, and one round of 128 MiB slots 1162 us (ncclAllReduce: 913 us); 32 MiB was
/// also the fastest at 1 GiB per rank and within 1 % of it at 64 MiB (results/*-x2-multigpu/phases-slots.txt). Each
/// round costs two barriers; why the single long round is slow was not looked into.
inline constexpr std::size_t default_symmetric_slot_bytes = std::size_t{32} << 20;

#if REDUCELAB_HAS_NCCL_DEVICE_API

namespace detail {

/// One rank's part of a symmetric_workspace: the NCCL memory of its window and the device communicator whose
/// barriers the kernel uses (one per block).
struct symmetric_rank {
  ncclComm_t comm = nullptr;
  int device = -1;
  int size = 1;
  void* buffer = nullptr;
  ncclWindow_t window = nullptr;
  ncclDevComm dev{};
  bool dev_created = false;
  int barriers = 0;
};

/// f(i) on a thread of its own for every i < count, with the first exception rethrown after all have ended: the
/// window registration and the device communicator are collective calls that block until every rank has made them,
/// so one thread cannot make them for several ranks in turn.
template <class F>
void on_threads(int count, F f) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(count));
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i)
    threads.emplace_back([&, i] {
      try {
        f(i);
      } catch (...) {
        errors[static_cast<std::size_t>(i)] = std::current_exception();
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace detail

/// NCCL symmetric memory for reducelab::multigpu::all_reduce: a registered window of `bytes` on every rank and a
/// device communicator with one barrier per block. Creating and destroying it are collective: every rank of the
/// communicator takes part (the per-rank constructor on every rank, or the local_group constructor once). Pass it
/// in all_reduce_options::workspace; the all-reduce then runs as one kernel per rank (this header's comment). Use one
/// workspace for one all-reduce at a time per communicator (stream-ordered calls on each rank's stream). Any size
/// works: a vector whose slots do not fit is done in rounds; 2 (P-1)/P of the vector's bytes does it in one.
class symmetric_workspace {
 public:
  /// This rank's window (a collective call: every rank of `comm` constructs one with the same `bytes`). The
  /// communicator's device must be current. bytes 0: two default slots per other rank.
  explicit symmetric_workspace(ncclComm_t comm, std::size_t bytes = 0) {
    const comm_info c = expect_comm_on_current_device(comm);
    bytes_ = window_bytes(bytes != 0 ? bytes : default_bytes(c.size));
    ranks_.resize(1);
    try {
      open(ranks_[0], comm, c);
    } catch (...) {
      close_all();
      throw;
    }
  }

  /// Every rank of a local group, from this thread. bytes 0: two default slots per other rank.
  explicit symmetric_workspace(const local_group& group, std::size_t bytes = 0)
      : bytes_(window_bytes(bytes != 0 ? bytes : default_bytes(group.size()))) {
    ranks_.resize(static_cast<std::size_t>(group.size()));
    try {
      detail::on_threads(group.size(), [&](int r) {
        device_scope on(group.device(r));
        open(ranks_[static_cast<std::size_t>(r)], group.comm(r), describe(group.comm(r)));
      });
    } catch (...) {
      close_all();
      throw;
    }
  }

  symmetric_workspace(const symmetric_workspace&) = delete;
  symmetric_workspace& operator=(const symmetric_workspace&) = delete;
  ~symmetric_workspace() { close_all(); }

  /// Bytes of each rank's window (the size asked for, rounded up to NCCL's window alignment).
  std::size_t bytes() const { return bytes_; }
  /// The window a workspace of `nranks` ranks gets by default: a reduce-scatter and an all-gather slot of
  /// default_symmetric_slot_bytes for every other rank.
  static std::size_t default_bytes(int nranks) {
    return 2 * static_cast<std::size_t>(std::max(1, nranks - 1)) * default_symmetric_slot_bytes;
  }
  /// This workspace's part for `comm`, or null if it has none.
  const detail::symmetric_rank* find(ncclComm_t comm) const {
    for (const detail::symmetric_rank& r : ranks_)
      if (r.comm == comm && comm != nullptr) return &r;
    return nullptr;
  }

 private:
  void open(detail::symmetric_rank& s, ncclComm_t comm, const comm_info& c) {
    s.comm = comm;
    s.device = c.device;
    s.size = c.size;
    int sms = 0;
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c.device));
    // Two blocks per SM are resident (the kernel's launch bounds ask for it), and a launch takes at most as many
    // blocks as there are barriers; the ranks agree on the fewest, since block b of every rank meets at barrier b and
    // a block waiting for one that is never scheduled would hang.
    s.barriers = agree_on_fewest(comm, 2 * sms);
    REDUCELAB_NCCL_TRY(ncclMemAlloc(&s.buffer, bytes_));
    REDUCELAB_NCCL_TRY(ncclCommWindowRegister(comm, s.buffer, bytes_, &s.window, NCCL_WIN_COLL_SYMMETRIC));
    ncclDevCommRequirements reqs{};
    reqs.lsaBarrierCount = s.barriers;
    REDUCELAB_NCCL_TRY(ncclDevCommCreate(comm, &reqs, &s.dev));
    s.dev_created = true;
    REDUCELAB_EXPECTS(s.dev.lsaSize == c.size,
                      "reducelab::multigpu::symmetric_workspace: only " + std::to_string(s.dev.lsaSize) + " of the " +
                          std::to_string(c.size) +
                          " ranks can load and store each other's memory (NVLink or PCIe peer access); use "
                          "all_reduce without a workspace");
  }

  /// NCCL registers windows in multiples of NCCL_WIN_REQUIRED_ALIGNMENT: a size asked for is rounded up to one.
  static std::size_t window_bytes(std::size_t asked) {
    const std::size_t unit = NCCL_WIN_REQUIRED_ALIGNMENT;
    return (asked + unit - 1) / unit * unit;
  }

  /// The smallest of every rank's `mine` (an ncclAllReduce of one int, waited for: like the window registration,
  /// it needs every rank to take part).
  static int agree_on_fewest(ncclComm_t comm, int mine) {
    cudaStream_t stream = nullptr;
    int* value = nullptr;
    CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    try {
      CUDA_TRY(cudaMallocAsync(reinterpret_cast<void**>(&value), sizeof(int), stream));
      CUDA_TRY(cudaMemcpyAsync(value, &mine, sizeof(int), cudaMemcpyHostToDevice, stream));
      REDUCELAB_NCCL_TRY(ncclAllReduce(value, value, 1, ncclInt32, ncclMin, comm, stream));
      CUDA_TRY(cudaMemcpyAsync(&mine, value, sizeof(int), cudaMemcpyDeviceToHost, stream));
      CUDA_TRY(cudaFreeAsync(value, stream));
      CUDA_TRY(cudaStreamSynchronize(stream));
    } catch (...) {
      cudaStreamDestroy(stream);
      throw;
    }
    CUDA_TRY(cudaStreamDestroy(stream));
    return mine;
  }

  static void close(detail::symmetric_rank& s) noexcept {
    if (s.comm == nullptr) return;
    device_scope on(s.device);
    if (s.dev_created) ncclDevCommDestroy(s.comm, &s.dev);
    if (s.window != nullptr) ncclCommWindowDeregister(s.comm, s.window);
    if (s.buffer != nullptr) ncclMemFree(s.buffer);
    s = detail::symmetric_rank{};
  }

  void close_all() noexcept {
    if (ranks_.size() == 1) {
      close(ranks_[0]);
    } else if (!ranks_.empty()) {
      try {
        detail::on_threads(static_cast<int>(ranks_.size()), [&](int r) { close(ranks_[static_cast<std::size_t>(r)]); });
      } catch (...) {
      }
    }
    ranks_.clear();
  }

  std::size_t bytes_ = 0;
  std::vector<detail::symmetric_rank> ranks_;
};

namespace detail {

/// Elements of a slice each thread has in flight per source before it stores any.
inline constexpr int symmetric_unroll = 4;

/// dst[j] = src[j] for j in [lo, hi), the block's threads striding (unrolled: several loads in flight).
template <class T>
__device__ __forceinline__ void block_copy(T* dst, const T* src, std::size_t lo, std::size_t hi) {
  constexpr int U = symmetric_unroll;
  std::size_t j = lo + threadIdx.x;
  for (; j + (U - 1) * blockDim.x < hi; j += U * blockDim.x) {
    T v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = src[j + u * blockDim.x];
#pragma unroll
    for (int u = 0; u < U; ++u) dst[j + u * blockDim.x] = v[u];
  }
  for (; j < hi; j += blockDim.x) dst[j] = src[j];
}

/// The kernel of this header's comment. `cut` is the all-reduce's chunking; slots hold slot_elems elements; the
/// window holds the P-1 reduce-scatter slots, then the P-1 all-gather slots (the other ranks in rank order).
template <class T, class OpT>
__global__ void __launch_bounds__(symmetric_block_threads, 2)
    symmetric_all_reduce(ncclDevComm dev, ncclWindow_t window, const T* in, T* out, chunking cut,
                         std::size_t slot_elems, OpT op) {
  const int P = cut.nranks, r = dev.rank;
  const std::size_t slot_bytes = slot_elems * sizeof(T);
  const std::size_t gather_base = static_cast<std::size_t>(P - 1) * slot_bytes;
  // Slot of rank `from` in rank `at`'s window: the other ranks in rank order.
  const auto slot_index = [](int from, int at) { return from < at ? from : from - 1; };
  ncclLsaBarrierSession<ncclCoopCta> barrier{ncclCoopCta(), dev, ncclTeamLsa(dev), dev.lsaBarrier, blockIdx.x};
  const std::size_t longest = cut.chunk_size(0);
  const std::size_t per_block = (slot_elems + gridDim.x - 1) / gridDim.x;
  for (std::size_t base = 0; base < longest; base += slot_elems) {
    const std::size_t round = chunking::min_of(slot_elems, longest - base);
    // A block owns the same positions of every slot in every round, the short last round included: the barriers
    // pair only block b with block b, so a position that block b read in one round must not be written by another
    // block in the next.
    const std::size_t lo = chunking::min_of(round, blockIdx.x * per_block);
    const std::size_t hi = chunking::min_of(round, lo + per_block);
    // Where chunk q's slice ends within this round (shorter chunks end earlier).
    const auto end_of = [&](int q) {
      return chunking::min_of(hi, cut.chunk_size(q) > base ? cut.chunk_size(q) - base : 0);
    };

    for (int q = 0; q < P; ++q) {  // push: my copies of the other chunks into their owners' slots
      if (q == r) continue;
      T* slot = static_cast<T*>(ncclGetLsaPointer(window, slot_index(r, q) * slot_bytes, q));
      const std::size_t e = end_of(q);
      if (lo < e) block_copy(slot, in + cut.chunk_begin(q) + base, lo, e);
    }
    // Release my pushes to the peers, acquire theirs into my slots.
    barrier.sync(ncclCoopCta(), cuda::memory_order_acq_rel);

    {  // fold chunk r in rank order; store it here and into every other rank's all-gather slot for r
      const std::size_t e = end_of(r);
      const T* mine = in + cut.chunk_begin(r) + base;
      T* local_out = out + cut.chunk_begin(r) + base;
      constexpr int U = symmetric_unroll;
      const auto source = [&](int q) -> const T* {
        return q == r ? mine
                      : static_cast<const T*>(ncclGetLocalPointer(window, slot_index(q, r) * slot_bytes));
      };
      const auto store = [&](std::size_t j, const T& v) {
        local_out[j] = v;
        for (int q = 0; q < P; ++q) {
          if (q == r) continue;
          T* gather = static_cast<T*>(ncclGetLsaPointer(window, gather_base + slot_index(r, q) * slot_bytes, q));
          gather[j] = v;
        }
      };
      std::size_t j = lo + threadIdx.x;
      for (; j + (U - 1) * blockDim.x < e; j += U * blockDim.x) {
        T acc[U];
        const T* s0 = source(0);
#pragma unroll
        for (int u = 0; u < U; ++u) acc[u] = s0[j + u * blockDim.x];
        for (int q = 1; q < P; ++q) {
          const T* s = source(q);
          T next[U];
#pragma unroll
          for (int u = 0; u < U; ++u) next[u] = s[j + u * blockDim.x];
#pragma unroll
          for (int u = 0; u < U; ++u) acc[u] = op(acc[u], next[u]);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) store(j + u * blockDim.x, acc[u]);
      }
      for (; j < e; j += blockDim.x) {
        T acc = source(0)[j];
        for (int q = 1; q < P; ++q) acc = op(acc, source(q)[j]);
        store(j, acc);
      }
    }
    barrier.sync(ncclCoopCta(), cuda::memory_order_acq_rel);

    for (int q = 0; q < P; ++q) {  // copy: the other ranks' folded chunks from my all-gather slots
      if (q == r) continue;
      const T* gather =
          static_cast<const T*>(ncclGetLocalPointer(window, gather_base + slot_index(q, r) * slot_bytes));
      const std::size_t e = end_of(q);
      if (lo < e) block_copy(out + cut.chunk_begin(q) + base, gather, lo, e);
    }
    // No barrier here: a peer writes my reduce-scatter slots again (next round's push) only after passing this
    // round's second barrier, which I reach after my last read of them (the fold); it writes my all-gather slots
    // again (next round's fold) only after the next round's first barrier, which I reach after this copy.
  }
}

/// Elements per slot: as many as the workspace holds for every other rank's two slots, at most slot_bytes' worth
/// and never more than the longest chunk; a multiple of 16 bytes' worth where it is cut, so that every slot starts
/// aligned. 0 when the workspace cannot hold one element per slot.
template <class T>
std::size_t symmetric_slot_elems(std::size_t workspace_bytes, int nranks, std::size_t longest, std::size_t slot_bytes) {
  const std::size_t fit = workspace_bytes / (2 * sizeof(T) * static_cast<std::size_t>(std::max(1, nranks - 1)));
  const std::size_t cap = std::max<std::size_t>(1, slot_bytes / sizeof(T));
  std::size_t slot = std::min({fit, cap, std::max<std::size_t>(longest, 1)});
  const std::size_t align = std::max<std::size_t>(1, 16 / sizeof(T));
  if (slot < longest && slot >= align) slot -= slot % align;
  return slot;
}

/// Launch the symmetric all-reduce of one rank (its device current, stream on it).
template <class T, class OpT>
void launch_symmetric_all_reduce(const symmetric_rank& s, std::size_t workspace_bytes, std::size_t slot_bytes,
                                 const T* in, T* out, std::size_t n, OpT op, cudaStream_t stream) {
  const chunking cut{n, 1, s.size};
  const std::size_t slot = symmetric_slot_elems<T>(workspace_bytes, s.size, cut.chunk_size(0),
                                                   slot_bytes != 0 ? slot_bytes : default_symmetric_slot_bytes);
  REDUCELAB_EXPECTS(slot > 0, "reducelab::multigpu::all_reduce: the symmetric workspace (" +
                                  std::to_string(workspace_bytes) + " bytes) cannot hold two " +
                                  std::to_string(sizeof(T)) + "-byte elements for each of the " +
                                  std::to_string(s.size - 1) + " other rank(s)");
  int per_sm = 0;
  CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, symmetric_all_reduce<T, OpT>,
                                                         symmetric_block_threads, 0));
  REDUCELAB_EXPECTS(per_sm >= 2, "reducelab::multigpu::all_reduce: the symmetric kernel fits " +
                                     std::to_string(per_sm) + " block(s) per SM, fewer than the 2 its grid assumes");
  // The same grid on every rank: a block per 512 elements of a slot, at most one per barrier (agreed by the ranks).
  const std::size_t wanted = (slot + symmetric_block_threads - 1) / symmetric_block_threads;
  const int blocks = static_cast<int>(std::min<std::size_t>(wanted, static_cast<std::size_t>(s.barriers)));
  symmetric_all_reduce<T, OpT><<<blocks, symmetric_block_threads, 0, stream>>>(s.dev, s.window, in, out, cut, slot, op);
  CUDA_TRY_LAUNCH();
}

}  // namespace detail

#else  // NCCL older than 2.28: no device API

/// Needs NCCL 2.28 or newer (its device API); with an older NCCL the constructors refuse.
class symmetric_workspace {
 public:
  explicit symmetric_workspace(ncclComm_t, std::size_t = 0) { refuse(); }
  explicit symmetric_workspace(const local_group&, std::size_t = 0) { refuse(); }
  std::size_t bytes() const { return 0; }

 private:
  [[noreturn]] static void refuse() {
    throw usage_error("reducelab::multigpu::symmetric_workspace needs NCCL 2.28 or newer (its device API); this "
                      "build has NCCL " + std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR));
  }
};

#endif

}  // namespace reducelab::multigpu
