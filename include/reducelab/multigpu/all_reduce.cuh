// Elementwise all-reduce of equal-length vectors with any functor: out[i] = in_0[i] op in_1[i] op ... op in_{P-1}[i]
// on every rank, folded in rank order (a non-commutative functor gets the rank-order result, bitwise the same on
// every run). NCCL moves the bytes (ncclSend/ncclRecv); ReduceLab's kernel combines them.
//
// How, for P ranks and n elements: the vector is cut into P chunks, rank r owning chunk r.
//   reduce-scatter: every rank sends its copy of chunk q to rank q, which folds the P copies in rank order into
//                   its out[chunk q] (direct, not a ring: a ring would fold in ring order, wrong for a
//                   non-commutative functor; the bytes sent per rank are the same, (P-1)/P of the vector);
//   all-gather:     every rank sends its folded chunk to every other rank, straight into their out.
// By default a chunk travels whole: reduce-scatter, fold, all-gather (measured fastest, all_reduce_options). With
// options.piece_bytes set it travels in pieces, so that the fold of piece k (on a side stream) overlaps the transfer
// of piece k+1: step j sends reduce-scatter piece j and all-gather piece j-2 in one NCCL group, then the side stream
// folds piece j. Two staging slots of (P-1) pieces receive the other ranks' copies.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "reducelab/detail/device_properties.hpp"
#include "reducelab/multigpu/communicator.hpp"
#include "reducelab/multigpu/detail/chunking.cuh"
#include "reducelab/multigpu/error.hpp"
#include "reducelab/multigpu/local_group.cuh"
#include "reducelab/multigpu/symmetric_all_reduce.cuh"
#include "reducelab/reduce.cuh"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace reducelab::multigpu {

struct all_reduce_options {
  /// Pipelining granularity: bytes of one piece of a rank's chunk, or 0 (the default) for one piece per chunk, no
  /// pipelining. Smaller pieces overlap more of the fold with the transfers, but each costs an NCCL group (a kernel
  /// on every GPU, the GPUs meeting) and a fold launch, and on the machine measured that cost always won: two H200s
  /// (NV18, NCCL 2.28.9), same runs (results/NVIDIA_H200-x2-multigpu/piece-bytes.txt), plus/float against
  /// ncclAllReduce's bus bandwidth at 256 MiB per rank: 0.33x with 2 MiB pieces, 0.51x with 8 MiB, 0.66x with 32 MiB,
  /// 0.71-0.72x with 64 MiB, 0.75x with one piece; at 1 GiB: 0.66x with 64 MiB, 0.79x with one piece. One piece
  /// stages (P-1)/P of the vector for the other ranks' copies; a piece size bounds that to two pieces per other rank.
  std::size_t piece_bytes = 0;
  /// Blocks of the fold kernel on each rank, or 0 (the default) for as many as fit on the GPU with one piece per
  /// chunk and two per SM when pipelined. A pipelined fold shares the GPU with NCCL's kernels: fewer blocks leave
  /// NCCL more of it while the fold hides behind the next piece's transfer.
  int fold_blocks = 0;
  /// The per-rank entry only: exchange the ranks' lengths first (a tiny collective and a wait on the host) so that
  /// unequal lengths are refused on every rank instead of mismatching NCCL's transfers. Turn off only when the
  /// caller guarantees equal lengths.
  bool verify_lengths = true;
  /// How long the per-rank entry's length check waits for the other ranks before it aborts the communicator and
  /// throws nccl_error (a rank that never calls would otherwise hang every other one).
  std::chrono::milliseconds timeout{60000};
  /// NCCL symmetric memory made for the communicator (symmetric_all_reduce.cuh): when set, the all-reduce runs as
  /// one kernel per rank over it instead of ncclSend/ncclRecv and a fold (piece_bytes and fold_blocks then do not
  /// apply). Null (the default): the send/receive path, which needs nothing made beforehand.
  const symmetric_workspace* workspace = nullptr;
  /// With a workspace: the most bytes of each chunk one round of the kernel moves, or 0 for
  /// default_symmetric_slot_bytes (symmetric_all_reduce.cuh says why rounds are short).
  std::size_t symmetric_slot_bytes = 0;
};

/// The most ranks an all-reduce folds (the fold kernel takes one source pointer per rank by value).
inline constexpr int max_all_reduce_ranks = 64;

namespace detail {

template <class T>
struct fold_sources {
  const T* src[max_all_reduce_ranks];
};

/// Elements of a rank's copy a fold thread loads before it combines any (several independent loads in flight).
inline constexpr int fold_unroll = 4;

/// out[i] = src[0][i] op src[1][i] op ... op src[nranks-1][i]: the rank-order fold of one piece. Each thread takes
/// fold_unroll elements a grid apart per round and loads them all from a rank's copy before it combines them: with
/// one element per round a thread had one load in flight, and the fold of a 128 MiB chunk was latency-bound.
template <class T, class OpT>
__global__ void fold_piece_in_rank_order(fold_sources<T> s, int nranks, std::size_t n, T* out, OpT op) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (fold_unroll - 1) * stride < n; i += fold_unroll * stride) {
    T acc[fold_unroll];
#pragma unroll
    for (int u = 0; u < fold_unroll; ++u) acc[u] = s.src[0][i + u * stride];
    for (int q = 1; q < nranks; ++q) {
      T next[fold_unroll];
#pragma unroll
      for (int u = 0; u < fold_unroll; ++u) next[u] = s.src[q][i + u * stride];
#pragma unroll
      for (int u = 0; u < fold_unroll; ++u) acc[u] = op(acc[u], next[u]);
    }
#pragma unroll
    for (int u = 0; u < fold_unroll; ++u) out[i + u * stride] = acc[u];
  }
  for (; i < n; i += stride) {
    T acc = s.src[0][i];
    for (int q = 1; q < nranks; ++q) acc = op(acc, s.src[q][i]);
    out[i] = acc;
  }
}

/// Everything all_reduce refuses on one rank, checked before anything is allocated or enqueued: the functor's
/// contract, a communicator of another device than the current one, too many ranks, options out of range, a stream
/// of another device, and (for n > 0) null pointers or pointers of another device. Returns the communicator's info.
template <class T, class OpT>
comm_info expect_all_reduce_args(const T* in, const T* out, std::size_t n, const OpT&, ncclComm_t comm,
                                 cudaStream_t stream, const all_reduce_options& options) {
  reducelab::detail::check_functor<T, OpT>();
  static_assert(std::is_trivially_copyable_v<T>, "reducelab::multigpu::all_reduce: T must be trivially copyable");
  const comm_info c = expect_comm_on_current_device(comm);
  REDUCELAB_EXPECTS(c.size <= max_all_reduce_ranks, "reducelab::multigpu::all_reduce: " + std::to_string(c.size) +
                                                        " ranks, more than the " +
                                                        std::to_string(max_all_reduce_ranks) + " it folds");
  REDUCELAB_EXPECTS(options.piece_bytes == 0 || options.piece_bytes >= sizeof(T),
                    "reducelab::multigpu::all_reduce: piece_bytes = " + std::to_string(options.piece_bytes) +
                        " is smaller than one element");
  REDUCELAB_EXPECTS(options.fold_blocks >= 0, "reducelab::multigpu::all_reduce: fold_blocks = " +
                                                  std::to_string(options.fold_blocks) + " is negative");
  reducelab::detail::expect_stream_on_device(stream, c.device);
  if (n > 0) {
    REDUCELAB_EXPECTS(in != nullptr, "reducelab::multigpu::all_reduce: input pointer (in) is null");
    REDUCELAB_EXPECTS(out != nullptr, "reducelab::multigpu::all_reduce: output pointer (out) is null");
    reducelab::detail::expect_on_device(in, c.device, "input pointer (in)");
    reducelab::detail::expect_on_device(out, c.device, "output pointer (out)");
  }
  return c;
}

/// One rank's share of an all-reduce, in steps, so that a thread driving several ranks can put every rank's
/// transfers of a step inside one ncclGroupStart/End: for j in [0, steps()): before_step(j); [group] transfers(j);
/// [end group] after_step(j). Then finish(). Every call is stream-ordered on the caller's stream.
template <class T, class OpT>
class rank_all_reduce {
 public:
  rank_all_reduce(const T* in, T* out, std::size_t n, OpT op, ncclComm_t comm, cudaStream_t stream,
                  const all_reduce_options& options)
      : in_(in), out_(out), op_(op), comm_(comm), stream_(stream) {
    const comm_info c = expect_all_reduce_args(in, out, n, op, comm, stream, options);
    rank_ = c.rank;
    // A piece never exceeds the longest chunk (that also keeps the staging size from overflowing).
    const std::size_t longest = std::max<std::size_t>(1, n / c.size + (n % c.size != 0 ? 1 : 0));
    const std::size_t wanted = options.piece_bytes == 0 ? longest : options.piece_bytes / sizeof(T);
    cut_ = chunking{n, std::min(wanted, longest), c.size};
    if (n == 0) return;
    if (c.size == 1) return;
    slot_elems_ = static_cast<std::size_t>(c.size - 1) * cut_.piece_elems;
    const std::size_t staged = std::min(cut_.pieces(), std::size_t{2}) * slot_elems_;
    int sms = 0;
    // Pipelined, the fold shares the GPU with NCCL's kernels: a few blocks per SM, which leave NCCL its SMs. One
    // piece per chunk, it runs between the reduce-scatter and the all-gather, alone: as many blocks as fit.
    int per_sm = 2;
    try {  // the destructor does not run when the constructor throws: give back what was made so far
      CUDA_TRY(cudaMallocAsync(reinterpret_cast<void**>(&staging_), staged * sizeof(T), stream));
      CUDA_TRY(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking));
      CUDA_TRY(cudaEventCreateWithFlags(&received_, cudaEventDisableTiming));
      for (cudaEvent_t& e : folded_) CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c.device));
      if (cut_.pieces() == 1) {
        CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fold_piece_in_rank_order<T, OpT>, 256, 0));
      }
    } catch (...) {
      release();
      throw;
    }
    fold_blocks_ = options.fold_blocks > 0 ? options.fold_blocks : std::max(per_sm, 1) * sms;
  }

  rank_all_reduce(const rank_all_reduce&) = delete;
  rank_all_reduce& operator=(const rank_all_reduce&) = delete;
  ~rank_all_reduce() { release(); }

  /// Steps the transfers take: the pieces, plus two to drain the all-gather. 0 when there is nothing to send.
  std::size_t steps() const { return (cut_.n == 0 || cut_.nranks == 1) ? 0 : cut_.pieces() + 2; }

  /// Before step j's group: the all-gather of piece j-2 sends what the fold of piece j-2 wrote, and step j's
  /// receives reuse the slot that fold read.
  void before_step(std::size_t j) {
    if (j >= 2) CUDA_TRY(cudaStreamWaitEvent(stream_, folded_[(j - 2) % folded_.size()], 0));
  }

  /// Step j's sends and receives (inside an NCCL group): reduce-scatter piece j, all-gather piece j-2.
  void transfers(std::size_t j) {
    const std::size_t k_rs = j, pieces = cut_.pieces();
    for (int q = 0; q < cut_.nranks; ++q) {
      if (q == rank_) continue;
      if (k_rs < pieces) {
        send(in_ + cut_.piece_begin(q, k_rs), cut_.piece_size(q, k_rs), q);
        recv(slot(k_rs, q), cut_.piece_size(rank_, k_rs), q);
      }
      if (j >= 2 && j - 2 < pieces) {
        const std::size_t k_ag = j - 2;
        send(out_ + cut_.piece_begin(rank_, k_ag), cut_.piece_size(rank_, k_ag), q);
        recv(out_ + cut_.piece_begin(q, k_ag), cut_.piece_size(q, k_ag), q);
      }
    }
  }

  /// After step j's group: the side stream folds piece j once its copies have arrived.
  void after_step(std::size_t j) {
    if (j >= cut_.pieces()) return;
    CUDA_TRY(cudaEventRecord(received_, stream_));
    CUDA_TRY(cudaStreamWaitEvent(side_, received_, 0));
    fold_sources<T> s{};
    for (int q = 0; q < cut_.nranks; ++q) s.src[q] = q == rank_ ? in_ + cut_.piece_begin(rank_, j) : slot(j, q);
    const std::size_t len = cut_.piece_size(rank_, j);
    if (len > 0) {
      const int blocks = static_cast<int>(std::min<std::size_t>(fold_blocks_, (len + 255) / 256));
      fold_piece_in_rank_order<T, OpT><<<blocks, 256, 0, side_>>>(s, cut_.nranks, len,
                                                                   out_ + cut_.piece_begin(rank_, j), op_);
      CUDA_TRY_LAUNCH();
    }
    CUDA_TRY(cudaEventRecord(folded_[j % folded_.size()], side_));
  }

  /// After the last step: one rank alone copies (unless in place); the staging goes back in stream order.
  void finish() {
    if (cut_.n > 0 && cut_.nranks == 1 && in_ != out_) {
      CUDA_TRY(cudaMemcpyAsync(out_, in_, cut_.n * sizeof(T), cudaMemcpyDeviceToDevice, stream_));
    }
    release();
  }

 private:
  T* slot(std::size_t k, int q) const {
    const int index = q < rank_ ? q : q - 1;  // the other ranks, in rank order
    return staging_ + (k % 2) * slot_elems_ + static_cast<std::size_t>(index) * cut_.piece_elems;
  }
  void send(const T* p, std::size_t count, int peer) {
    if (count > 0) REDUCELAB_NCCL_TRY(ncclSend(p, count * sizeof(T), ncclUint8, peer, comm_, stream_));
  }
  void recv(T* p, std::size_t count, int peer) {
    if (count > 0) REDUCELAB_NCCL_TRY(ncclRecv(p, count * sizeof(T), ncclUint8, peer, comm_, stream_));
  }
  /// Ordered after everything enqueued: the side stream's last fold is waited for by the last step, and
  /// destroying a stream or an event with work pending is deferred by CUDA until that work is done.
  void release() noexcept {
    if (side_ != nullptr && cudaEventRecord(received_, side_) == cudaSuccess) {
      cudaStreamWaitEvent(stream_, received_, 0);  // on an error path, a fold may still read the staging
    }
    if (staging_ != nullptr) cudaFreeAsync(staging_, stream_);
    staging_ = nullptr;
    if (side_ != nullptr) cudaStreamDestroy(side_);
    side_ = nullptr;
    if (received_ != nullptr) cudaEventDestroy(received_);
    received_ = nullptr;
    for (cudaEvent_t& e : folded_) {
      if (e != nullptr) cudaEventDestroy(e);
      e = nullptr;
    }
  }

  const T* in_;
  T* out_;
  OpT op_;
  ncclComm_t comm_;
  cudaStream_t stream_;
  int rank_ = 0;
  chunking cut_{};
  std::size_t slot_elems_ = 0;
  int fold_blocks_ = 1;
  T* staging_ = nullptr;
  cudaStream_t side_ = nullptr;
  cudaEvent_t received_ = nullptr;
  std::array<cudaEvent_t, 3> folded_{};  // step j waits for the fold of j-2 while j-1's may be recorded
};

/// The symmetric path's part for `comm`, refused (usage_error) when the workspace was made for another communicator.
inline const symmetric_rank* expect_workspace_part(const symmetric_workspace& ws, ncclComm_t comm,
                                                   const comm_info& c) {
#if REDUCELAB_HAS_NCCL_DEVICE_API
  const symmetric_rank* s = ws.find(comm);
  REDUCELAB_EXPECTS(s != nullptr, "reducelab::multigpu::all_reduce: the workspace has no window for this "
                                  "communicator (rank " + std::to_string(c.rank) + " of " +
                                      std::to_string(c.size) + "); make it over the same communicator(s)");
  return s;
#else
  (void)ws, (void)comm, (void)c;
  throw usage_error("reducelab::multigpu::all_reduce: a symmetric workspace needs NCCL 2.28 or newer");
#endif
}

/// One rank's all-reduce over symmetric memory (its device current; arguments checked): nothing for n == 0, a copy
/// for one rank, else the symmetric kernel.
template <class T, class OpT>
void symmetric_rank_all_reduce(const symmetric_workspace& ws, const symmetric_rank* part, const T* in, T* out,
                               std::size_t n, OpT op, const comm_info& c, cudaStream_t stream, std::size_t slot_bytes) {
  if (n == 0) return;
  if (c.size == 1) {
    if (in != out) CUDA_TRY(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    return;
  }
#if REDUCELAB_HAS_NCCL_DEVICE_API
  launch_symmetric_all_reduce(*part, ws.bytes(), slot_bytes, in, out, n, op, stream);
#else
  (void)ws, (void)part, (void)op, (void)slot_bytes;
#endif
}

/// Refuse unequal lengths on every rank alike: all-gather the lengths and compare them on the host.
inline void expect_equal_lengths(std::size_t n, ncclComm_t& comm, cudaStream_t stream, int nranks, int rank,
                                 std::chrono::milliseconds timeout) {
  unsigned long long* lengths = nullptr;
  CUDA_TRY(cudaMallocAsync(reinterpret_cast<void**>(&lengths), sizeof(unsigned long long) * nranks, stream));
  const unsigned long long mine = n;
  std::vector<unsigned long long> all(static_cast<std::size_t>(nranks));
  try {
    CUDA_TRY(cudaMemcpyAsync(lengths + rank, &mine, sizeof(mine), cudaMemcpyHostToDevice, stream));
    REDUCELAB_NCCL_TRY(ncclAllGather(lengths + rank, lengths, 1, ncclUint64, comm, stream));
    // Wait before copying back: a copy into pageable memory would block in CUDA, with no timeout, if a rank never
    // joined; wait() reports that after its timeout instead (and aborts the communicator).
    wait(comm, stream, timeout);
    CUDA_TRY(cudaMemcpyAsync(all.data(), lengths, sizeof(mine) * all.size(), cudaMemcpyDeviceToHost, stream));
  } catch (...) {
    cudaFreeAsync(lengths, stream);
    throw;
  }
  CUDA_TRY(cudaFreeAsync(lengths, stream));
  for (int q = 0; q < nranks; ++q) {
    REDUCELAB_EXPECTS(all[q] == mine, "reducelab::multigpu::all_reduce: the ranks' vectors differ in length (rank " +
                                          std::to_string(rank) + " has " + std::to_string(mine) + ", rank " +
                                          std::to_string(q) + " has " + std::to_string(all[q]) + ")");
  }
}

}  // namespace detail

/// This rank's part of an elementwise all-reduce across `comm`: out[i] = the rank-order fold of every rank's in[i],
/// for i < n, on every rank. `in` may equal `out`. Stream-ordered on `stream` (of the communicator's device, which
/// must be current). Unless options.verify_lengths is false, the ranks' n are compared first (one tiny collective
/// and a host wait) and unequal lengths throw usage_error on every rank. As for multigpu::reduce, a thread owning
/// several ranks uses the local_group overload. `comm` is taken by reference: when the length check times out or
/// NCCL reports an error, the communicator is aborted and set to null (see wait()) before nccl_error is thrown.
template <class T, class OpT, class = std::enable_if_t<!std::is_pointer_v<OpT>>>
void all_reduce(const T* in, T* out, std::size_t n, OpT op, ncclComm_t& comm, cudaStream_t stream = nullptr,
                const all_reduce_options& options = {}) {
  if (options.workspace != nullptr) {
    const comm_info c = detail::expect_all_reduce_args(in, out, n, op, comm, stream, options);
    const detail::symmetric_rank* part = detail::expect_workspace_part(*options.workspace, comm, c);
    if (options.verify_lengths && c.size > 1)
      detail::expect_equal_lengths(n, comm, stream, c.size, c.rank, options.timeout);
    detail::symmetric_rank_all_reduce(*options.workspace, part, in, out, n, op, c, stream,
                                      options.symmetric_slot_bytes);
    return;
  }
  detail::rank_all_reduce<T, OpT> rank(in, out, n, op, comm, stream, options);
  if (options.verify_lengths) {
    const comm_info c = describe(comm);
    if (c.size > 1) detail::expect_equal_lengths(n, comm, stream, c.size, c.rank, options.timeout);
  }
  for (std::size_t j = 0; j < rank.steps(); ++j) {
    rank.before_step(j);
    detail::in_nccl_group([&] { rank.transfers(j); });  // one step's sends and receives go out together
    rank.after_step(j);
  }
  rank.finish();
}

/// One rank's vectors for all_reduce(local_group&, ...): pointers and stream on that rank's device.
template <class T>
struct vector_shard {
  const T* in = nullptr;  ///< the rank's vector (device memory)
  T* out = nullptr;       ///< where the rank gets the folded vector (device memory; may equal in)
  std::size_t n = 0;      ///< its length: the same on every rank
  cudaStream_t stream = nullptr;
};

/// Elementwise all-reduce across the group's GPUs from one thread: shards[r].out[i] = the rank-order fold of every
/// shards[q].in[i]. Unequal lengths are refused before anything is enqueued. Stream-ordered on each rank's stream
/// (wait with group.wait or the streams). Restores the current device.
template <class T, class OpT>
void all_reduce(local_group& group, const std::vector<vector_shard<T>>& shards, OpT op,
                const all_reduce_options& options = {}) {
  REDUCELAB_EXPECTS(shards.size() == static_cast<std::size_t>(group.size()),
                    "reducelab::multigpu::all_reduce: " + std::to_string(shards.size()) + " shards for a group of " +
                        std::to_string(group.size()) + " ranks");
  for (std::size_t r = 1; r < shards.size(); ++r) {
    REDUCELAB_EXPECTS(shards[r].n == shards[0].n,
                      "reducelab::multigpu::all_reduce: the ranks' vectors differ in length (rank 0 has " +
                          std::to_string(shards[0].n) + ", rank " + std::to_string(r) + " has " +
                          std::to_string(shards[r].n) + ")");
  }
  if (options.workspace != nullptr) {  // every rank checked before any launches
    std::vector<std::pair<comm_info, const detail::symmetric_rank*>> parts;
    group.on_each_rank([&](int r) {
      const vector_shard<T>& s = shards[static_cast<std::size_t>(r)];
      const comm_info c = detail::expect_all_reduce_args(s.in, s.out, s.n, op, group.comm(r), s.stream, options);
      parts.emplace_back(c, detail::expect_workspace_part(*options.workspace, group.comm(r), c));
    });
    group.on_each_rank([&](int r) {
      const vector_shard<T>& s = shards[static_cast<std::size_t>(r)];
      detail::symmetric_rank_all_reduce(*options.workspace, parts[r].second, s.in, s.out, s.n, op, parts[r].first,
                                        s.stream, options.symmetric_slot_bytes);
    });
    return;
  }
  std::vector<std::unique_ptr<detail::rank_all_reduce<T, OpT>>> ranks;
  ranks.reserve(shards.size());
  group.on_each_rank([&](int r) {
    const vector_shard<T>& s = shards[static_cast<std::size_t>(r)];
    ranks.push_back(std::make_unique<detail::rank_all_reduce<T, OpT>>(s.in, s.out, s.n, op, group.comm(r), s.stream,
                                                                      options));
  });
  const std::size_t steps = ranks.front()->steps();  // the same on every rank: same n, same group
  for (std::size_t j = 0; j < steps; ++j) {
    group.on_each_rank([&](int r) { ranks[r]->before_step(j); });
    // NCCL takes each communicator's device itself: the transfers need no device switch.
    detail::in_nccl_group([&] {
      for (auto& rank : ranks) rank->transfers(j);
    });
    group.on_each_rank([&](int r) { ranks[r]->after_step(j); });
  }
  group.on_each_rank([&](int r) { ranks[r]->finish(); });
}

}  // namespace reducelab::multigpu
