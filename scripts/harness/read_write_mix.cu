// The ceiling of a pass that moves reduce_by_key's bytes (issue 13's by-key goal: 85 % of peak at runs of 8 and
// longer). The goals' plain read (reducelab::reduce over as many bytes as a case moves) only reads; reduce_by_key reads
// n keys and n values and writes one key and one value a run. This times, cold, on the same grid shape:
//   read   the n keys and values alone (no writes);
//   mix    the same reads, and a key and a value written for the last item of every run of L (the by-key outputs'
//          bytes and places: run r's to slot r), nothing else computed;
//   flat   a read-only pass over as many bytes as mix moves (the goals' plain read).
// GB/s and % of peak count every byte moved (reads and writes). If mix falls short of flat, the by-key lines are held
// to a target that their own bytes' mix of reads and writes does not reach.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I scripts/harness -I . scripts/harness/read_write_mix.cu \
//        comparisons/timing/stream_hold.cu -o read_write_mix
//   HARNESS_LOG2N=26 [HARNESS_MIX_BLOCKS_PER_SM=4] [HARNESS_MIX_LANE_ITEMS=8] [HARNESS_HOLD=1] ./read_write_mix
//        [lengths, default 1,8,32,256] [samples, default 9]
//   HARNESS_MIX_TILE_STEPS=S [HARNESS_MIX_TILE_WAIT_NS=W]: the read and mix rows' blocks meet at a block barrier every
//        S steps (a step: 2048 items a block), where thread 0 spins W ns before a second barrier: a stand-in for the
//        by-key stream kernel's tile synchronization (stop 74: its other warps wait for warp 0's look-backs), to see
//        what such a wait costs a pass that otherwise only moves the bytes.
#include "harness_common.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int threads = 256;

/// One step's keys (16-byte vector `at`) and values: with Write, the last item of every run of `length` stores its key
/// and value to the run's slot.
template <class ValueT, bool Write, int ValueVectors>
__device__ __forceinline__ void write_runs(long long at, const int4& k, const int4 (&v)[ValueVectors], long long length,
                                           int* keys_out, ValueT* values_out) {
  if constexpr (Write) {
    const int key_items[4] = {k.x, k.y, k.z, k.w};
    const ValueT* value_items = reinterpret_cast<const ValueT*>(v);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const long long item = at * 4 + i;
      if ((item + 1) % length == 0) {
        keys_out[item / length] = key_items[i];
        values_out[item / length] = value_items[i];
      }
    }
  }
}

/// Reads 4 keys and 4 values a thread a step (16-byte vectors; the values as ValueVectors of them), two steps in
/// flight; with Write, the last item of every run of `length` stores its key and value to the run's slot.
/// Blocked (HARNESS_MIX_LANE_ITEMS=8): each thread's two vectors a step are consecutive (8 consecutive keys and values
/// a lane, one step in flight), the load pattern of the by-key stream kernel's short-run lanes
/// (agent/run_stretch.cuh): the same bytes in flight, but each warp-wide load asks for every other 16 bytes of 1 KiB.
/// Tiled: every tile_steps steps the block meets at a barrier, thread 0 spins wait_cycles, and a second barrier
/// releases the block (every thread takes the same number of steps, idle past the end).
template <class ValueT, bool Write, bool Blocked = false, bool Tiled = false>
__global__ void __launch_bounds__(threads) mix(const int4* keys, const int4* values, long long groups, long long length,
                                               int* keys_out, ValueT* values_out, int* sink, int tile_steps = 0,
                                               long long wait_cycles = 0) {
  static_assert(!(Tiled && Blocked), "the tiled stand-in uses the coalesced steps");
  constexpr int value_vectors = 4 * static_cast<int>(sizeof(ValueT)) / 16;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long steps = Tiled ? (groups + 2 * stride - 1) / (2 * stride) : 0;
  int acc = 0;
  long long step = 0;
  for (long long g = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; Tiled ? step < steps : g < groups;
       g += 2 * stride, ++step) {
    if (Tiled && step > 0 && step % tile_steps == 0) {
      __syncthreads();
      if (threadIdx.x == 0) {
        const long long start = clock64();
        while (clock64() - start < wait_cycles) {
        }
      }
      __syncthreads();
    }
    if (Tiled && g >= groups) continue;
    int4 k[2];
    int4 v[2][value_vectors];
    // the vectors of the step: g and g + stride, or (Blocked) 2h and 2h + 1 where h is g's place among the
    // threads' pairs (groups is even: n is a power of two)
    const long long h = g / (2 * stride) * stride + g % (2 * stride);
    const long long first = Blocked ? 2 * h : g;
    const long long next = Blocked ? 2 * h + 1 : g + stride;
    const bool second = next < groups;
    if (Blocked && first >= groups) break;
#pragma unroll
    for (int s = 0; s < 2; ++s) {
      const long long at = s == 0 ? first : (second ? next : first);
      k[s] = keys[at];
#pragma unroll
      for (int j = 0; j < value_vectors; ++j) v[s][j] = values[at * value_vectors + j];
    }
#pragma unroll
    for (int s = 0; s < 2 && (s == 0 || second); ++s) {
      acc ^= k[s].x ^ k[s].w ^ v[s][0].x;
      write_runs<ValueT, Write>(s == 0 ? first : next, k[s], v[s], length, keys_out, values_out);
    }
  }
  if (acc == 0x7fffffff) *sink = acc;
}

template <class ValueT, bool Blocked, bool Tiled = false>
void measure(long long n, const std::vector<long long>& lengths, int samples, int tile_steps = 0,
             long long wait_cycles = 0) {
  const double peak = harness_common::peak_gb_per_s();
  const long long groups = n / 4;
  int4 *keys = nullptr, *values = nullptr, *flat = nullptr;
  int *keys_out = nullptr, *sink = nullptr;
  ValueT* values_out = nullptr;
  CHECK_CUDA(cudaMalloc(&keys, n * 4));
  CHECK_CUDA(cudaMalloc(&values, n * sizeof(ValueT)));
  CHECK_CUDA(cudaMalloc(&keys_out, n * 4));
  CHECK_CUDA(cudaMalloc(&values_out, n * sizeof(ValueT)));
  CHECK_CUDA(cudaMalloc(&flat, 2 * n * (4 + sizeof(ValueT))));
  CHECK_CUDA(cudaMalloc(&sink, 4));
  CHECK_CUDA(cudaMemset(keys, 1, n * 4));
  CHECK_CUDA(cudaMemset(values, 1, n * sizeof(ValueT)));
  CHECK_CUDA(cudaMemset(flat, 1, 2 * n * (4 + sizeof(ValueT))));
  int device = 0, sms = 0, per_sm = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mix<ValueT, true, Blocked, Tiled>, threads, 0));
  // HARNESS_MIX_BLOCKS_PER_SM caps the resident blocks an SM (the grid is one wave of them): at 4, 32 warps an SM
  // with 64 bytes of loads in flight a lane for 4-byte pairs, as the stream kernel's short-run lanes have at runs of 8.
  const char* cap = std::getenv("HARNESS_MIX_BLOCKS_PER_SM");
  if (cap != nullptr && std::atoi(cap) > 0) per_sm = std::min(per_sm, std::atoi(cap));
  const unsigned grid = static_cast<unsigned>(sms * per_sm);
  std::printf("%s values: %d blocks of %d threads an SM (%u blocks)%s", sizeof(ValueT) == 4 ? "int32" : "double",
              per_sm, threads, grid, Blocked ? ", read and mix rows: 8 consecutive items a lane a step" : "");
  if (Tiled) std::printf(", read and mix rows: a barrier every %d steps, %lld cycles' wait", tile_steps, wait_cycles);
  std::printf("\n");
  harness_common::cold_timer timer;
  auto median = [&](auto&& call) {
    std::vector<float> us;
    for (int s = 0; s < samples; ++s) us.push_back(timer.time_us(s, call));
    std::sort(us.begin(), us.end());
    return static_cast<double>(us[us.size() / 2]);
  };
  auto line = [&](const char* what, long long length, double bytes, double us) {
    std::printf("%-6s %s L=%-5lld %9.1f us %7.0f GB/s %5.1f%%\n", what, sizeof(ValueT) == 4 ? "int" : "dbl", length,
                us, bytes / us / 1e3, 100 * bytes / us / 1e3 / peak);
  };
  const double read_bytes = static_cast<double>(n) * (4 + sizeof(ValueT));
  line("read", 0, read_bytes, median([&](cudaStream_t s) {
         mix<ValueT, false, Blocked, Tiled><<<grid, threads, 0, s>>>(keys, values, groups, 1, keys_out, values_out,
                                                                     sink, tile_steps, wait_cycles);
       }));
  for (long long length : lengths) {
    // the writes checked once: run r's slot holds its last key (memset bytes 1: 0x01010101)
    CHECK_CUDA(cudaMemset(keys_out, 0, n * 4));
    mix<ValueT, true, Blocked, Tiled><<<grid, threads>>>(keys, values, groups, length, keys_out, values_out, sink,
                                                         tile_steps, wait_cycles);
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<int> got(n / length);
    CHECK_CUDA(cudaMemcpy(got.data(), keys_out, got.size() * 4, cudaMemcpyDeviceToHost));
    const long long wrong = std::count_if(got.begin(), got.end(), [](int x) { return x != 0x01010101; });
    if (wrong != 0) std::printf("WRONG L=%lld: %lld run slots not written\n", length, wrong);
    const double bytes = read_bytes + static_cast<double>(n / length) * (4 + sizeof(ValueT));
    line("mix", length, bytes, median([&](cudaStream_t s) {
           mix<ValueT, true, Blocked, Tiled><<<grid, threads, 0, s>>>(keys, values, groups, length, keys_out,
                                                                      values_out, sink, tile_steps, wait_cycles);
         }));
    // a read-only pass over the same bytes: flat as keys (4 bytes an item) and values (ValueT), groups scaled
    const long long flat_groups = static_cast<long long>(bytes / (4 * (4 + sizeof(ValueT))));
    line("flat", length, bytes, median([&](cudaStream_t s) {
           mix<ValueT, false><<<grid, threads, 0, s>>>(flat, flat + flat_groups, flat_groups, 1, keys_out,
                                                       values_out, sink);
         }));
  }
  for (void* p : {static_cast<void*>(keys), static_cast<void*>(values), static_cast<void*>(flat),
                  static_cast<void*>(keys_out), static_cast<void*>(values_out), static_cast<void*>(sink)})
    CHECK_CUDA(cudaFree(p));
}

}  // namespace

int main(int argc, char** argv) {
  const char* log2n = std::getenv("HARNESS_LOG2N");
  const long long n = 1LL << (log2n != nullptr ? std::atoi(log2n) : 26);
  const std::vector<long long> lengths = harness_common::parse_lengths(argc, argv, {1, 8, 32, 256});
  const int samples = argc > 2 ? std::atoi(argv[2]) : 9;
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, peak %.0f GB/s, n = 2^%d int32 keys, %d cold samples (median)\n", prop.name,
              harness_common::peak_gb_per_s(), log2n != nullptr ? std::atoi(log2n) : 26, samples);
  const char* lane_items = std::getenv("HARNESS_MIX_LANE_ITEMS");
  const char* tile_steps = std::getenv("HARNESS_MIX_TILE_STEPS");
  if (tile_steps != nullptr && std::atoi(tile_steps) > 0) {
    const char* wait_ns = std::getenv("HARNESS_MIX_TILE_WAIT_NS");
    int khz = 0;  // the SM clock in kHz, so ns x kHz / 1e6 cycles
    CHECK_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const long long cycles = (wait_ns != nullptr ? std::atoll(wait_ns) : 0) * khz / 1000000;
    measure<int, false, true>(n, lengths, samples, std::atoi(tile_steps), cycles);
    measure<double, false, true>(n, lengths, samples, std::atoi(tile_steps), cycles);
  } else if (lane_items != nullptr && std::atoi(lane_items) == 8) {
    measure<int, true>(n, lengths, samples);
    measure<double, true>(n, lengths, samples);
  } else {
    measure<int, false>(n, lengths, samples);
    measure<double, false>(n, lengths, samples);
  }
}
