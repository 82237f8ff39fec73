// Same-run harness for a reduce_by_key lead (issue 13, stop 59): can runs of equal keys be reduced by a resident grid
// whose warps each stream one contiguous stretch of keys and values, as segmented_reduce's stream walk does, instead of
// the one-pass kernel's tiles, each waiting on the tiles before it (kernels/reduce_runs.cuh)? Not part of the build or
// of the tests; what it printed is in results/NVIDIA_H200-segmented/by-key-stream-proxy.txt, and (joined_2 beside the
// library's stream path, kernels/stream_runs.cuh, which follows it) by-key-stream-path.txt.
//
//   proxy_U      the lead's streaming part: a grid of 4 blocks of 256 threads per SM; warp w takes elements
//                [w * L, (w + 1) * L) (L a multiple of 128 x U), reads them as 16-byte vectors of keys and of values,
//                4 consecutive items a lane, U chunks of 128 loaded before any is used. A chunk without a run head
//                only adds into each lane's accumulator; a chunk with heads closes its runs with a segmented warp scan
//                and writes each run that starts and ends in the warp's stretch (its key and value), in order, at the
//                warp's own place in an n-long output (w * L + its count so far). What it leaves out is what the
//                library would add once per block, not per tile: the runs' global positions (a look-back over the
//                blocks' head counts) and the runs that cross stretches (their leading and trailing pieces, written
//                here per warp, joined by a look-back as segment_carries.cuh does). plus only (commutative).
//   full_2       proxy_2 finished in two more kernels: join_stretches (one block: each stretch's first run from an
//                exclusive sum of the heads, and the runs that cross stretches from a segmented scan of their pieces)
//                and place_runs (each warp moves its runs from a scratch array to their places): the whole
//                reduce_by_key, checked like the library's row; a one-kernel form would join per block, with a
//                look-back, instead
//   joined_2     the whole reduce_by_key in one kernel (stream_runs_joined): proxy_2's warps, then each block joins its
//                8 warps, publishes its head count and its carry and looks back once over the blocks before it
//                (segmented/grid/segment_carries.cuh), then moves its runs from the scratch to their places
//   plain        the same grid and stretches, keys and values summed: the streaming floor of this shape
//   library      reducelab::reduce_by_key
//   segmented    reducelab::segmented_reduce over the values, the runs' offsets given (computed on the host)
//
// Every row's output is checked against the host before timing (proxy: each warp's runs, counts and pieces).
//
//   build (sm_90):  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I include -I . \
//                     scripts/harness/by_key_stream_proxy.cu comparisons/timing/stream_hold.cu -o by_key_stream_proxy
//                   (-DHARNESS_VALUE=double for double values)
//   run:            HARNESS_LOG2N=26 ./by_key_stream_proxy [LENGTHS] [SAMPLES]
// LENGTHS: uniform run lengths, or -1 (random lengths 1..64) and -2 (1..3000). int32 keys. Cold: cold_timer (a 256 MiB
// memset and read between samples); the median of SAMPLES after one unrecorded call. % of peak counts keys and
// values in, the runs' keys and values out, for every row.
#include "harness_common.cuh"
#include "reducelab/segmented_reduce.cuh"

#include "reducelab/segmented/grid/segment_carries.cuh"

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#ifndef HARNESS_VALUE
#define HARNESS_VALUE int
#endif
using value_t = HARNESS_VALUE;

using harness_common::sum;

template <class T>
struct alignas(4 * sizeof(T)) four {
  T x[4];
};

constexpr int threads = 256;
constexpr int warps_per_block = threads / 32;

/// A warp's next U chunks of 128 items, lane `lane` holding items 4 lane .. 4 lane + 3 of each: every load issued before
/// any is used.
template <int U, class T>
__device__ __forceinline__ void load_chunks(const int* __restrict__ keys, const T* __restrict__ values, long long base,
                                            int lane, int4 (&kv)[U], four<T> (&vv)[U]) {
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const long long at = base + u * 128LL + lane * 4;
    kv[u] = *reinterpret_cast<const int4*>(keys + at);
    vv[u] = *reinterpret_cast<const four<T>*>(values + at);
  }
}

/// What each warp leaves besides its runs: how many it wrote, whether its stretch holds a head, and the pieces of the
/// runs that cross its ends (leading: before its first head; trailing: from its last head, or the whole stretch).
template <class T>
struct warp_pieces {
  int runs;
  int heads;
  T leading;
  T trailing;
  int last_key;  // the key of the stretch's last item: the key of the run in progress at its end
};

/// Warp w's stretch, streamed: its runs written at keys_out / values_out + w * stretch, its pieces returned (in every
/// lane). A warp past n returns no heads and empty pieces.
template <int U, class T>
__device__ __forceinline__ warp_pieces<T> stream_stretch(const int* __restrict__ keys, const T* __restrict__ values,
                                                         long long n, long long stretch, long long w,
                                                         int* __restrict__ keys_out, T* __restrict__ values_out) {
  const int lane = threadIdx.x % 32;
  const long long begin = w * stretch;
  if (begin >= n) return {0, 0, T{0}, T{0}, 0};
  const long long end = begin + stretch < n ? begin + stretch : n;
  int carry_key = begin > 0 ? keys[begin - 1] : ~keys[0];  // item 0 always starts a run
  T run = T{0};       // the run in progress up to the last chunk with a head (warp-uniform)
  T lane_acc = T{0};  // this lane's items since then
  bool seen_head = false;
  T leading = T{0};
  int written = 0, heads_seen = 0;
  for (long long base = begin; base < end; base += 128LL * U) {
    int4 kv[U];
    four<T> vv[U];
    load_chunks<U>(keys, values, base, lane, kv, vv);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int k[4] = {kv[u].x, kv[u].y, kv[u].z, kv[u].w};
      const T* v = vv[u].x;
      int before = __shfl_up_sync(0xffffffffu, k[3], 1);
      if (lane == 0) before = carry_key;
      carry_key = __shfl_sync(0xffffffffu, k[3], 31);
      const bool h0 = k[0] != before, h1 = k[1] != k[0], h2 = k[2] != k[1], h3 = k[3] != k[2];
      const unsigned with_heads = __ballot_sync(0xffffffffu, h0 | h1 | h2 | h3);
      if (with_heads == 0) {  // most chunks of long runs
        lane_acc += (v[0] + v[1]) + (v[2] + v[3]);
        continue;
      }
      // The run in progress when the chunk starts: `run` and every lane's accumulator.
      T in = lane_acc;
#pragma unroll
      for (int d = 16; d > 0; d /= 2) in += __shfl_xor_sync(0xffffffffu, in, d);
      in += run;
      lane_acc = T{0};
      // This lane's pieces: its items before its first head (lead), from its last head (tail).
      const bool h[4] = {h0, h1, h2, h3};
      const bool any = h0 | h1 | h2 | h3;
      T lead = T{0}, tail = T{0};
      bool started = false;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (h[j]) {
          started = true;
          tail = T{0};
        }
        if (started) tail += v[j];
        else lead += v[j];
      }
      // Segmented inclusive scan of (any head, value of the run in progress at the lane's end) over the lanes.
      bool f = any;
      T s = any ? tail : lead;
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const bool fo = __shfl_up_sync(0xffffffffu, f, d);
        const T so = __shfl_up_sync(0xffffffffu, s, d);
        if (lane >= d) {
          if (!f) s = so + s;
          f = f || fo;
        }
      }
      bool fe = __shfl_up_sync(0xffffffffu, f, 1);
      T se = __shfl_up_sync(0xffffffffu, s, 1);
      if (lane == 0) {
        fe = false;
        se = T{0};
      }
      const T entering = fe ? se : in + se;  // the run in progress where this lane starts
      // The runs this lane closes: one per head. The first head of the warp's stretch closes the leading piece.
      const int first_lane = __ffs(static_cast<int>(with_heads)) - 1;
      const bool closes_leading = !seen_head && lane == first_lane;
      const int lane_heads = static_cast<int>(h0) + h1 + h2 + h3;
      int mine = lane_heads - (closes_leading ? 1 : 0);
      int at = mine;  // exclusive scan of the lanes' outputs
#pragma unroll
      for (int d = 1; d < 32; d *= 2) {
        const int o = __shfl_up_sync(0xffffffffu, at, d);
        if (lane >= d) at += o;
      }
      const int chunk_runs = __shfl_sync(0xffffffffu, at, 31);
      at -= mine;
      if (any) {
        long long slot = w * stretch + written + at;
        T acc = entering;
        int run_key = before;
        bool first = true;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          if (h[j]) {
            if (first && closes_leading) {
              leading = acc;
            } else {
              keys_out[slot] = run_key;
              values_out[slot] = acc;
              ++slot;
            }
            first = false;
            acc = T{0};
          }
          acc += v[j];
          run_key = k[j];
        }
      }
      written += chunk_runs;
      heads_seen += __reduce_add_sync(0xffffffffu, static_cast<unsigned>(lane_heads));
      if (!seen_head) leading = __shfl_sync(0xffffffffu, leading, first_lane);  // the lane that closed it
      seen_head = true;
      const bool f31 = __shfl_sync(0xffffffffu, f, 31);
      const T s31 = __shfl_sync(0xffffffffu, s, 31);
      run = f31 ? s31 : in + s31;
    }
  }
  T total = lane_acc;
#pragma unroll
  for (int d = 16; d > 0; d /= 2) total += __shfl_xor_sync(0xffffffffu, total, d);
  // Without a head the whole stretch is one piece of an earlier run: leading and trailing at once.
  return {written, heads_seen, seen_head ? leading : run + total, run + total, carry_key};
}

template <int U, class T>
__global__ void __launch_bounds__(threads, 4)
    stream_runs(const int* __restrict__ keys, const T* __restrict__ values, long long n, long long stretch,
                int* __restrict__ keys_out, T* __restrict__ values_out, warp_pieces<T>* __restrict__ pieces) {
  const long long w = blockIdx.x * static_cast<long long>(warps_per_block) + threadIdx.x / 32;
  if (w * stretch >= n) return;
  const warp_pieces<T> p = stream_stretch<U>(keys, values, n, stretch, w, keys_out, values_out);
  if (threadIdx.x % 32 == 0) pieces[w] = p;
}

struct count_sum {
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{0};
  }
  __host__ __device__ long long operator()(long long a, long long b) const { return a + b; }
};

/// joined_U: the whole reduce_by_key in one kernel. Each warp streams its stretch (its runs to a scratch array at its
/// own place); the block joins its 8 warps (thread 0, in order), publishes its head count and its carry (the run in
/// progress at its end) and looks back once over the blocks before it (segment_carries.cuh) for the runs before it and
/// for the run in progress at its start; then each warp moves its runs to their places and writes the run its first
/// head closes. The grid is resident (at most 4 blocks an SM), so every look-back's wait ends.
template <int U, class T>
__global__ void __launch_bounds__(threads, 4)
    stream_runs_joined(const int* __restrict__ keys, const T* __restrict__ values, long long n, long long stretch,
                       int* __restrict__ keys_scratch, T* __restrict__ values_scratch, int* __restrict__ keys_out,
                       T* __restrict__ values_out, int* __restrict__ num_runs,
                       reducelab::segmented::grid::carry_slots<long long> counts,
                       reducelab::segmented::grid::carry_slots<T> carries) {
  namespace sg = reducelab::segmented::grid;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const long long b = blockIdx.x;
  const long long w = b * warps_per_block + warp;
  __shared__ warp_pieces<T> rec[warps_per_block];
  __shared__ T crossing[warps_per_block];  // the run each warp's first head closes, without `entering` if flagged
  __shared__ bool uses_entering[warps_per_block];
  __shared__ int heads_before[warps_per_block];
  __shared__ long long runs_before_s;
  __shared__ T entering_s;
  __shared__ union {
    reducelab::block::reduce_storage<long long, threads> counts;
    reducelab::block::reduce_storage<T, threads> carries;
  } look;
  const warp_pieces<T> p = stream_stretch<U>(keys, values, n, stretch, w, keys_scratch, values_scratch);
  if (lane == 0) rec[warp] = p;
  __syncthreads();
  __shared__ int block_heads_s;
  __shared__ bool block_has_head_s;
  __shared__ T block_carry_s;
  __shared__ int last_key_s;
  if (threadIdx.x == 0) {
    int heads = 0, last_key = 0;
    bool any = false;
    T carry = T{0};  // the run in progress at the end of the warps so far (without `entering` while !any)
    for (int i = 0; i < warps_per_block; ++i) {
      const warp_pieces<T> r = rec[i];
      heads_before[i] = heads;
      const bool active = (b * warps_per_block + i) * stretch < n;
      if (r.heads > 0) {
        crossing[i] = carry + r.leading;
        uses_entering[i] = !any;
        carry = r.trailing;
        any = true;
      } else {
        carry = carry + r.leading;
      }
      heads += r.heads;
      if (active) last_key = r.last_key;
    }
    block_heads_s = heads;
    block_has_head_s = any;
    block_carry_s = carry;
    last_key_s = last_key;
    if (b == 0) {
      reducelab::grid::publish(counts.prefixes, static_cast<long long>(heads), counts.epoch);
    } else {
      reducelab::grid::publish(counts.aggregates + b, static_cast<long long>(heads), counts.epoch);
    }
    sg::publish_carry(carries, b, carry, any);
  }
  __syncthreads();
  const bool any = block_has_head_s;
  const bool last_block = (b + 1) * warps_per_block * stretch >= n;
  long long runs_before = 0;
  if (b > 0) {
    runs_before = sg::look_back<threads>(counts, b, count_sum{}, look.counts);
    if (threadIdx.x == 0) {
      runs_before_s = runs_before;
      reducelab::grid::publish(counts.prefixes + b, runs_before + block_heads_s, counts.epoch);
    }
    __syncthreads();
    runs_before = runs_before_s;
  }
  T entering = T{0};
  if (b > 0 && (any || last_block)) {
    entering = sg::look_back<threads>(carries, b, sum{}, look.carries);
    if (threadIdx.x == 0) entering_s = entering;
    __syncthreads();
    entering = entering_s;
  }
  // Place: warp `warp`'s inner runs, then the run its first head closes.
  const long long first = runs_before + heads_before[warp];  // the run its first head starts
  const int inner = rec[warp].runs;
  for (int j = lane; j < inner; j += 32) {
    keys_out[first + j] = keys_scratch[w * stretch + j];
    values_out[first + j] = values_scratch[w * stretch + j];
  }
  if (lane == 0 && rec[warp].heads > 0 && first > 0) {
    const T v = uses_entering[warp] ? entering + crossing[warp] : crossing[warp];
    const int key = warp > 0 ? rec[warp - 1].last_key : keys[w * stretch - 1];
    keys_out[first - 1] = key;
    values_out[first - 1] = v;
  }
  if (last_block && threadIdx.x == 0) {  // the input's last run
    const long long total = runs_before + block_heads_s;
    keys_out[total - 1] = last_key_s;
    values_out[total - 1] = any ? block_carry_s : entering + block_carry_s;
    *num_runs = static_cast<int>(total);
  }
}

/// The floor of that shape: the same stretches, keys and values summed.
template <int U, class T>
__global__ void __launch_bounds__(threads, 4)
    stream_plain(const int* __restrict__ keys, const T* __restrict__ values, long long n, long long stretch,
                 T* __restrict__ sink) {
  const int lane = threadIdx.x % 32;
  const long long w = blockIdx.x * static_cast<long long>(warps_per_block) + threadIdx.x / 32;
  const long long begin = w * stretch;
  if (begin >= n) return;
  const long long end = begin + stretch < n ? begin + stretch : n;
  T acc = T{0};
  int kacc = 0;
  for (long long base = begin; base < end; base += 128LL * U) {
    int4 kv[U];
    four<T> vv[U];
    load_chunks<U>(keys, values, base, lane, kv, vv);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      kacc ^= kv[u].x ^ kv[u].y ^ kv[u].z ^ kv[u].w;
      acc += (vv[u].x[0] + vv[u].x[1]) + (vv[u].x[2] + vv[u].x[3]);
    }
  }
  if (acc == T{-12345} && kacc == 0x7531) *sink = acc;  // keeps the loads
}

/// full_U's second step: one block joins the stretches. Run r starts at the r-th head; the run closed by stretch w's
/// first head started in an earlier stretch (its pieces: the trailing piece of the last stretch before w with a head,
/// the whole of the stretches between, w's leading piece), and so does the input's last run. A segmented scan over the
/// stretches gives both; an exclusive sum of the heads gives each stretch's first run (`first_run`). Writes those runs
/// and the run count.
struct flagged_piece_op {
  template <class P>
  __device__ P operator()(const P& a, const P& b) const {
    return {a.f || b.f, b.f ? b.v : a.v + b.v};
  }
};
template <class T>
struct flagged_piece {
  bool f;
  T v;
};
template <int Items, class T>
__global__ void __launch_bounds__(1024) join_stretches(const warp_pieces<T>* __restrict__ pieces, long long stretches,
                                                       int* __restrict__ keys_out, T* __restrict__ values_out,
                                                       int* __restrict__ first_run, int* __restrict__ num_runs) {
  using count_scan = cub::BlockScan<int, 1024>;
  using piece_scan = cub::BlockScan<flagged_piece<T>, 1024>;
  __shared__ union {
    typename count_scan::TempStorage counts;
    typename piece_scan::TempStorage pieces;
  } storage;
  int heads[Items], before[Items];
  flagged_piece<T> own[Items], entering[Items];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const long long w = threadIdx.x * static_cast<long long>(Items) + i;
    const bool real = w < stretches;
    const warp_pieces<T> p = real ? pieces[w] : warp_pieces<T>{0, 0, T{0}, T{0}, 0};
    heads[i] = p.heads;
    own[i] = {p.heads > 0, p.heads > 0 ? p.trailing : p.leading};
  }
  int total = 0;
  count_scan(storage.counts).ExclusiveSum(heads, before, total);
  __syncthreads();
  piece_scan(storage.pieces).ExclusiveScan(own, entering, flagged_piece_op{});
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const long long w = threadIdx.x * static_cast<long long>(Items) + i;
    if (w >= stretches) continue;
    first_run[w] = before[i];
    const warp_pieces<T> p = pieces[w];
    if (w > 0 && p.heads > 0) {  // the run its first head closes
      keys_out[before[i] - 1] = pieces[w - 1].last_key;
      values_out[before[i] - 1] = entering[i].v + p.leading;
    }
    if (w == stretches - 1) {  // the input's last run
      const flagged_piece<T> out = w > 0 ? flagged_piece_op{}(entering[i], own[i]) : own[i];
      keys_out[total - 1] = p.last_key;
      values_out[total - 1] = out.v;
      *num_runs = total;
    }
  }
}

/// full_U's third step: each warp moves the runs that start and end in its stretch to their places.
template <class T>
__global__ void __launch_bounds__(threads) place_runs(const warp_pieces<T>* __restrict__ pieces,
                                                      const int* __restrict__ first_run, long long stretches,
                                                      long long stretch, const int* __restrict__ keys_scratch,
                                                      const T* __restrict__ values_scratch, int* __restrict__ keys_out,
                                                      T* __restrict__ values_out) {
  const long long w = blockIdx.x * static_cast<long long>(warps_per_block) + threadIdx.x / 32;
  if (w >= stretches) return;
  const int runs = pieces[w].runs;
  const long long from = w * stretch, to = first_run[w];
  for (int j = threadIdx.x % 32; j < runs; j += 32) {
    keys_out[to + j] = keys_scratch[from + j];
    values_out[to + j] = values_scratch[from + j];
  }
}

int main(int argc, char** argv) {
  const char* log2n = std::getenv("HARNESS_LOG2N");
  const long long n = 1LL << (log2n ? std::atoi(log2n) : 24);
  const std::vector<long long> lengths = harness_common::parse_lengths(argc, argv, {1, 8, 32, 256, 4096, -1, -2});
  const int samples = argc > 2 ? std::atoi(argv[2]) : 9;

  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  const double peak = harness_common::peak_gb_per_s();
  const long long blocks = static_cast<long long>(prop.multiProcessorCount) * 4;
  const long long warps = blocks * warps_per_block;
  std::printf("%s, peak %.0f GB/s, n = %lld, value %zu bytes, key 4 bytes, %d samples, %lld blocks of %d\n", prop.name,
              peak, n, sizeof(value_t), samples, blocks, threads);

  std::vector<value_t> hv(n);
  unsigned x = 12345;
  for (auto& v : hv) v = static_cast<value_t>(static_cast<int>((x = x * 1664525u + 1013904223u) >> 8) % 1000 - 500);
  int *keys, *keys_out, *num_runs, *offsets;
  value_t *values, *values_out, *sink;
  warp_pieces<value_t>* pieces;
  CHECK_CUDA(cudaMalloc(&keys, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&values, n * sizeof(value_t)));
  CHECK_CUDA(cudaMalloc(&keys_out, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&values_out, n * sizeof(value_t)));
  CHECK_CUDA(cudaMalloc(&num_runs, 8));
  CHECK_CUDA(cudaMalloc(&offsets, (n + 1) * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(value_t)));
  CHECK_CUDA(cudaMalloc(&pieces, warps * sizeof(warp_pieces<value_t>)));
  int *keys_scratch, *first_run;
  value_t* values_scratch;
  CHECK_CUDA(cudaMalloc(&keys_scratch, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&values_scratch, n * sizeof(value_t)));
  CHECK_CUDA(cudaMalloc(&first_run, warps * sizeof(int)));
  // joined_U's look-back slots (cleared once: every word carries its launch's epoch) and the epochs.
  void* slots;
  const std::size_t slot_bytes = reducelab::segmented::grid::carry_slots<long long>::bytes_for(blocks) +
                                 reducelab::segmented::grid::carry_slots<value_t>::bytes_for(blocks);
  CHECK_CUDA(cudaMalloc(&slots, slot_bytes));
  CHECK_CUDA(cudaMemset(slots, 0, slot_bytes));
  unsigned long long launch_epoch = 0;
  CHECK_CUDA(cudaMemcpy(values, hv.data(), n * sizeof(value_t), cudaMemcpyHostToDevice));
  harness_common::cold_timer timer;
  const cudaStream_t stream = timer.stream();

  for (long long length : lengths) {
    const std::vector<long long> starts = harness_common::run_starts(n, length);
    const long long S = static_cast<long long>(starts.size());
    std::vector<int> hk(n);
    std::vector<int> hoff(starts.begin(), starts.end());
    hoff.push_back(static_cast<int>(n));
    for (long long r = 0; r < S; ++r)
      for (long long j = hoff[r]; j < hoff[r + 1]; ++j) hk[j] = static_cast<int>(r * 7);
    CHECK_CUDA(cudaMemcpy(keys, hk.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(offsets, hoff.data(), hoff.size() * sizeof(int), cudaMemcpyHostToDevice));
    const double bytes = n * double(sizeof(int) + sizeof(value_t)) + S * double(sizeof(int) + sizeof(value_t));

    auto stretch_for = [&](int u) {
      const long long step = 128LL * u;
      const long long per = (n + warps - 1) / warps;
      return (per + step - 1) / step * step;
    };
    struct row {
      std::string name;
      std::function<void(cudaStream_t)> fn;
      int check;  // 0 none, 1 proxy (U in fn), 2 library, 3 segmented values
      long long stretch;
    };
    std::vector<row> rows;
    auto add_proxy = [&](auto u_tag) {
      constexpr int U = decltype(u_tag)::value;
      const long long st = stretch_for(U);
      const unsigned g = static_cast<unsigned>((n + st * warps_per_block - 1) / (st * warps_per_block));
      rows.push_back({"proxy_" + std::to_string(U),
                      [=](cudaStream_t s) {
                        stream_runs<U, value_t><<<g, threads, 0, s>>>(keys, values, n, st, keys_out, values_out,
                                                                       pieces);
                      },
                      1, st});
      rows.push_back({"plain_" + std::to_string(U),
                      [=](cudaStream_t s) { stream_plain<U, value_t><<<g, threads, 0, s>>>(keys, values, n, st, sink); },
                      0, st});
    };
    {
      constexpr int U = 2;
      const long long st = stretch_for(U);
      const long long stretches = (n + st - 1) / st;
      const unsigned g = static_cast<unsigned>((n + st * warps_per_block - 1) / (st * warps_per_block));
      if (stretches > 1024 * 8) {
        std::printf("full_2: %lld stretches, more than join_stretches takes\n", stretches);
        return 1;
      }
      rows.push_back({"full_2",
                      [=](cudaStream_t s) {
                        stream_runs<U, value_t><<<g, threads, 0, s>>>(keys, values, n, st, keys_scratch,
                                                                       values_scratch, pieces);
                        join_stretches<8, value_t><<<1, 1024, 0, s>>>(pieces, stretches, keys_out, values_out,
                                                                      first_run, num_runs);
                        place_runs<value_t><<<g, threads, 0, s>>>(pieces, first_run, stretches, st, keys_scratch,
                                                                  values_scratch, keys_out, values_out);
                      },
                      2, st});
    }
    {
      constexpr int U = 2;
      const long long st = stretch_for(U);
      const unsigned g = static_cast<unsigned>((n + st * warps_per_block - 1) / (st * warps_per_block));
      namespace sg = reducelab::segmented::grid;
      unsigned long long* epoch = &launch_epoch;
      rows.push_back({"joined_2",
                      [=](cudaStream_t s) {
                        const unsigned long long e = ++*epoch;
                        const auto counts = sg::carry_slots<long long>::carve(slots, g, e);
                        const auto carries = sg::carry_slots<value_t>::carve(
                            static_cast<unsigned char*>(slots) + sg::carry_slots<long long>::bytes_for(g), g, e);
                        stream_runs_joined<U, value_t><<<g, threads, 0, s>>>(keys, values, n, st, keys_scratch,
                                                                              values_scratch, keys_out, values_out,
                                                                              num_runs, counts, carries);
                      },
                      2, st});
    }
    add_proxy(std::integral_constant<int, 2>{});
    add_proxy(std::integral_constant<int, 4>{});
    rows.push_back({"library",
                    [=](cudaStream_t s) {
                      reducelab::reduce_by_key(keys, values, static_cast<std::size_t>(n), keys_out, values_out,
                                               num_runs, sum{}, s);
                    },
                    2, 0});
    rows.push_back({"segmented",
                    [=](cudaStream_t s) {
                      reducelab::segmented_reduce(values, offsets, offsets + 1, static_cast<std::size_t>(S),
                                                  values_out, sum{}, s);
                    },
                    3, 0});

    // Host references: every run's value, and per stretch what the proxy leaves.
    std::vector<value_t> want(S);
    for (long long r = 0; r < S; ++r) {
      value_t a{0};
      for (long long i = hoff[r]; i < hoff[r + 1]; ++i) a += hv[i];
      want[r] = a;
    }
    auto close = [](value_t a, value_t b) {
      if constexpr (std::is_integral_v<value_t>) return a == b;
      else return std::fabs(double(a) - double(b)) <= 1e-9 * (1 + std::fabs(double(b)));
    };
    auto check = [&](const row& r) -> std::string {
      if (r.check == 0) return "";
      if (r.check == 2 || r.check == 3) {
        std::vector<value_t> got(S);
        std::vector<int> gk(S);
        int runs = static_cast<int>(S);
        CHECK_CUDA(cudaMemcpy(got.data(), values_out, S * sizeof(value_t), cudaMemcpyDeviceToHost));
        if (r.check == 2) {
          CHECK_CUDA(cudaMemcpy(gk.data(), keys_out, S * sizeof(int), cudaMemcpyDeviceToHost));
          CHECK_CUDA(cudaMemcpy(&runs, num_runs, 4, cudaMemcpyDeviceToHost));
        }
        long long bad = 0;
        for (long long s = 0; s < S; ++s)
          bad += !close(got[s], want[s]) || (r.check == 2 && gk[s] != hk[hoff[s]]);
        return runs != S || bad ? "WRONG (" + std::to_string(bad) + " runs, count " + std::to_string(runs) + ")" : "";
      }
      std::vector<warp_pieces<value_t>> gp(warps);
      std::vector<value_t> gv(n);
      std::vector<int> gk(n);
      CHECK_CUDA(cudaMemcpy(gp.data(), pieces, warps * sizeof(gp[0]), cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(gv.data(), values_out, n * sizeof(value_t), cudaMemcpyDeviceToHost));
      CHECK_CUDA(cudaMemcpy(gk.data(), keys_out, n * sizeof(int), cudaMemcpyDeviceToHost));
      long long bad = 0, heads = 0;
      for (long long w = 0; w * r.stretch < n; ++w) {
        const long long b = w * r.stretch, e = std::min(n, b + r.stretch);
        value_t acc{0}, leading{0};
        int written = 0, hs = 0;
        bool seen = false;
        for (long long i = b; i < e; ++i) {
          if (i == 0 || hk[i] != hk[i - 1]) {
            ++hs;
            if (!seen) leading = acc;
            else {
              bad += !close(gv[b + written], acc) || gk[b + written] != hk[i - 1];
              ++written;
            }
            seen = true;
            acc = value_t{0};
          }
          acc += hv[i];
        }
        if (!seen) leading = acc;
        bad += gp[w].runs != written || gp[w].heads != hs || !close(gp[w].leading, leading) ||
               !close(gp[w].trailing, acc);
        heads += gp[w].heads;
      }
      return bad || heads != S ? "WRONG (" + std::to_string(bad) + " mismatches, heads " + std::to_string(heads) + ")"
                               : "";
    };

    std::vector<std::vector<float>> times(rows.size());
    for (int k = 0; k <= samples; ++k) {
      for (std::size_t r = 0; r < rows.size(); ++r) {
        const float us = timer.time_us(k, rows[r].fn);
        if (k > 0) times[r].push_back(us);
        if (k == 0) {
          const std::string verdict = check(rows[r]);
          if (!verdict.empty()) std::printf("  %s L=%lld %s\n", rows[r].name.c_str(), length, verdict.c_str());
        }
      }
    }
    std::printf("L=%-6lld S=%-9lld", length, S);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      std::sort(times[r].begin(), times[r].end());
      const float median = times[r][times[r].size() / 2];
      std::printf(" | %s %.1fus %.1f%%", rows[r].name.c_str(), median, bytes / (median * 1e-6) / 1e9 / peak * 100);
    }
    std::printf("\n");
  }
  return 0;
}
