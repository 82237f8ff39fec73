// Issue 14: where the time of reducelab::multigpu::all_reduce goes on two GPUs, and which schedules could close its
// gap to ncclAllReduce. One process drives both GPUs (a local_group); float plus, so that every full schedule's
// output can be compared bitwise with ncclAllReduce's (two addends: a + b is b + a in IEEE arithmetic).
//
//   ./all_reduce_phases ROUNDS MIB[,MIB...] [schedule,...]
//
// Each sample holds GPU 0's stream with a spinning kernel until every schedule's work is enqueued (launch-free), the
// other GPU's stream waiting on it, and brackets the work with events on GPU 0 after a join of every stream. The
// schedules run interleaved, in a rotated order each round; each prints its median, quartiles and min, and the
// median of its per-round ratio to ncclAllReduce. Parts (rs, fold, ag) print timings only; full schedules are
// checked against ncclAllReduce's output on both GPUs before they are timed ("ok" or the mismatch count).
//
// Build (here, with NCCL from scripts/fetch_nccl.sh):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I include -I . -I $NCCL_ROOT/include scripts/harness/all_reduce_phases.cu \
//        -L $NCCL_ROOT/lib -l:libnccl.so.2 -o all_reduce_phases
#include "functors/plus.cuh"
#include "reducelab/multigpu.cuh"
#include "scripts/harness/harness_common.cuh"

#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace rmg = reducelab::multigpu;
using reducelab::functors::plus;

#define CHECK_NCCL(x)                                                                  \
  do {                                                                                 \
    ncclResult_t r_ = (x);                                                             \
    if (r_ != ncclSuccess) {                                                           \
      std::printf("NCCL error %s at line %d\n", ncclGetErrorString(r_), __LINE__);   \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

namespace {

constexpr int P = 2;

/// Holds a stream until the host sets *release, or for at most 2 s (then *expired is set and the sample is void).
__global__ void hold(volatile int* release, volatile int* expired) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (*release == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > 2000000000ull) {
      *expired = 1;
      return;
    }
  }
}

__global__ void fill(float* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    unsigned x = static_cast<unsigned>(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    p[i] = static_cast<float>(x & 0xffffff) / 16777216.0f - 0.5f;
  }
}

__global__ void count_mismatches(const unsigned* a, const unsigned* b, std::size_t n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    mine += a[i] != b[i];
  if (mine) atomicAdd(bad, mine);
}

/// out = a op b over 16-byte vectors, four vectors of each source in flight per thread (n4 vectors).
template <class OpT>
__global__ void fold2_vec4(const float4* a, const float4* b, float4* out, std::size_t n4, OpT op) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    float4 x[4], y[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) x[u] = a[i + u * stride];
#pragma unroll
    for (int u = 0; u < 4; ++u) y[u] = b[i + u * stride];
#pragma unroll
    for (int u = 0; u < 4; ++u) out[i + u * stride] = make_float4(op(x[u].x, y[u].x), op(x[u].y, y[u].y),
                                                                  op(x[u].z, y[u].z), op(x[u].w, y[u].w));
  }
  for (; i < n4; i += stride) {
    const float4 x = a[i], y = b[i];
    out[i] = make_float4(op(x.x, y.x), op(x.y, y.y), op(x.z, y.z), op(x.w, y.w));
  }
}

struct rank_buffers {
  float *in = nullptr, *out = nullptr, *ref = nullptr, *stage = nullptr;  // stage: P * n
  cudaStream_t stream = nullptr, side = nullptr;
  cudaEvent_t ev[64] = {};
};

struct schedule {
  std::string name;
  bool full;  // produces the all-reduce in out (checked against ncclAllReduce's)
  std::function<void()> enqueue;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[static_cast<std::size_t>(q * (v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::printf("usage: %s ROUNDS MIB[,MIB...] [schedule,...]\n", argv[0]);
    return 2;
  }
  const int rounds = std::atoi(argv[1]);
  const std::vector<int> mibs = harness_common::parse_int_list(argv[2]);
  const std::string only = argc > 3 ? std::string(",") + argv[3] + "," : "";
  int count = 0;
  CHECK_CUDA(cudaGetDeviceCount(&count));
  if (count < P) {
    std::printf("needs %d GPUs, found %d\n", P, count);
    return 1;
  }
  rmg::local_group group({0, 1});
  int sms = 0, fold_per_sm = 0, vec_per_sm = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &fold_per_sm, rmg::detail::fold_piece_in_rank_order<float, plus>, 256, 0));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&vec_per_sm, fold2_vec4<plus>, 256, 0));
  int* release = nullptr;
  int* expired = nullptr;
  CHECK_CUDA(cudaHostAlloc(&release, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  CHECK_CUDA(cudaHostAlloc(&expired, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  *expired = 0;
  std::printf("device: %d GPUs, %d SMs; fold blocks/SM: library %d, vec4 %d\n", count, sms, fold_per_sm, vec_per_sm);

  for (const int mib : mibs) {
    const std::size_t n = static_cast<std::size_t>(mib) << 18;  // floats
    const std::size_t c = n / P;                                // chunk (n is a multiple of 4 * P)
    rank_buffers b[P];
    for (int r = 0; r < P; ++r) {
      CHECK_CUDA(cudaSetDevice(r));
      CHECK_CUDA(cudaMalloc(&b[r].in, n * sizeof(float)));
      CHECK_CUDA(cudaMalloc(&b[r].out, n * sizeof(float)));
      CHECK_CUDA(cudaMalloc(&b[r].ref, n * sizeof(float)));
      CHECK_CUDA(cudaMalloc(&b[r].stage, P * n * sizeof(float)));
      CHECK_CUDA(cudaStreamCreateWithFlags(&b[r].stream, cudaStreamNonBlocking));
      CHECK_CUDA(cudaStreamCreateWithFlags(&b[r].side, cudaStreamNonBlocking));
      for (cudaEvent_t& e : b[r].ev) CHECK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      fill<<<1024, 256, 0, b[r].stream>>>(b[r].in, n, 0x9e3779b9u * (r + 1) + mib);
      CHECK_CUDA(cudaStreamSynchronize(b[r].stream));
    }
    const auto on_ranks = [&](auto f) {
      for (int r = 0; r < P; ++r) {
        CHECK_CUDA(cudaSetDevice(r));
        f(r);
      }
    };
    const auto grouped = [&](auto f) {
      CHECK_NCCL(ncclGroupStart());
      for (int r = 0; r < P; ++r) f(r);
      CHECK_NCCL(ncclGroupEnd());
    };
    const auto send = [&](const float* p, std::size_t k, int peer, int r) {
      CHECK_NCCL(ncclSend(p, k * sizeof(float), ncclUint8, peer, group.comm(r), b[r].stream));
    };
    const auto recv = [&](float* p, std::size_t k, int peer, int r) {
      CHECK_NCCL(ncclRecv(p, k * sizeof(float), ncclUint8, peer, group.comm(r), b[r].stream));
    };
    // The parts of the library's default schedule, written out (rank r owns chunk r; staging = stage[0, c)).
    const auto rs = [&] {
      grouped([&](int r) {
        send(b[r].in + (1 - r) * c, c, 1 - r, r);
        recv(b[r].stage, c, 1 - r, r);
      });
    };
    const auto fold_lib = [&](int blocks) {
      on_ranks([&](int r) {
        rmg::detail::fold_sources<float> s{};
        s.src[r] = b[r].in + r * c;
        s.src[1 - r] = b[r].stage;
        rmg::detail::fold_piece_in_rank_order<float, plus>
            <<<blocks, 256, 0, b[r].stream>>>(s, P, c, b[r].out + r * c, plus{});
      });
    };
    const auto fold_vec = [&](int blocks) {
      on_ranks([&](int r) {
        const float* first = r == 0 ? b[r].in + r * c : b[r].stage;  // rank order: rank 0's copy first
        const float* second = r == 0 ? b[r].stage : b[r].in + r * c;
        fold2_vec4<<<blocks, 256, 0, b[r].stream>>>(reinterpret_cast<const float4*>(first),
                                                    reinterpret_cast<const float4*>(second),
                                                    reinterpret_cast<float4*>(b[r].out + r * c), c / 4, plus{});
      });
    };
    const auto ag_p2p = [&] {
      grouped([&](int r) {
        send(b[r].out + r * c, c, 1 - r, r);
        recv(b[r].out + (1 - r) * c, c, 1 - r, r);
      });
    };
    const auto ag_coll = [&] {
      grouped([&](int r) {
        CHECK_NCCL(ncclAllGather(b[r].out + r * c, b[r].out, c, ncclFloat32, group.comm(r), b[r].stream));
      });
    };
    // The whole vectors all-gathered into stage (rank q's at stage + q n), then folded: P = 2 only.
    const auto agwhole_pipe = [&](int pieces, int blocks) {
      const std::size_t pc = n / pieces;
      for (int j = 0; j < pieces; ++j) {
        grouped([&](int r) {
          CHECK_NCCL(ncclAllGather(b[r].in + j * pc, b[r].stage + 2 * j * pc, pc, ncclFloat32, group.comm(r),
                                   b[r].stream));
        });
        on_ranks([&](int r) {
          CHECK_CUDA(cudaEventRecord(b[r].ev[j], b[r].stream));
          CHECK_CUDA(cudaStreamWaitEvent(b[r].side, b[r].ev[j], 0));
          const float* s0 = b[r].stage + 2 * j * pc;
          fold2_vec4<<<blocks, 256, 0, b[r].side>>>(reinterpret_cast<const float4*>(s0),
                                                    reinterpret_cast<const float4*>(s0 + pc),
                                                    reinterpret_cast<float4*>(b[r].out + j * pc), pc / 4, plus{});
        });
      }
      on_ranks([&](int r) {
        CHECK_CUDA(cudaEventRecord(b[r].ev[63], b[r].side));
        CHECK_CUDA(cudaStreamWaitEvent(b[r].stream, b[r].ev[63], 0));
      });
    };
    const auto lib = [&](std::size_t piece_bytes, int fold_blocks) {
      std::vector<rmg::vector_shard<float>> shards;
      for (int r = 0; r < P; ++r) shards.push_back({b[r].in, b[r].out, n, b[r].stream});
      rmg::all_reduce_options o;
      o.piece_bytes = piece_bytes;
      o.fold_blocks = fold_blocks;
      rmg::all_reduce(group, shards, plus{}, o);
    };
    const int full_lib = fold_per_sm * sms, full_vec = vec_per_sm * sms;
    // Symmetric memory: one window holding every slot (one round), and one of the library's default size.
    std::unique_ptr<rmg::symmetric_workspace> sym_whole, sym_small;
    try {
      sym_whole = std::make_unique<rmg::symmetric_workspace>(group, n * sizeof(float));
      sym_small = std::make_unique<rmg::symmetric_workspace>(group);
    } catch (const std::exception& e) {
      std::printf("symmetric workspace: %s\n", e.what());
    }
    const auto sym = [&](const rmg::symmetric_workspace* ws, std::size_t slot_bytes) {
      if (ws == nullptr) return;
      std::vector<rmg::vector_shard<float>> shards;
      for (int r = 0; r < P; ++r) shards.push_back({b[r].in, b[r].out, n, b[r].stream});
      rmg::all_reduce_options o;
      o.workspace = ws;
      o.symmetric_slot_bytes = slot_bytes;
      rmg::all_reduce(group, shards, plus{}, o);
    };
    std::vector<schedule> all = {
        {"nccl", false,
         [&] {
           grouped([&](int r) {
             CHECK_NCCL(ncclAllReduce(b[r].in, b[r].ref, n, ncclFloat32, ncclSum, group.comm(r), b[r].stream));
           });
         }},
        {"lib", true, [&] { lib(0, 0); }},
        {"sym", true, [&] { sym(sym_small.get(), 0); }},  // the library's defaults
        {"sym-s1", true, [&] { sym(sym_whole.get(), 1u << 20); }},
        {"sym-s2", true, [&] { sym(sym_whole.get(), 2u << 20); }},
        {"sym-s4", true, [&] { sym(sym_whole.get(), 4u << 20); }},
        {"sym-s8", true, [&] { sym(sym_whole.get(), 8u << 20); }},
        {"sym-s16", true, [&] { sym(sym_whole.get(), 16u << 20); }},
        {"sym-s32", true, [&] { sym(sym_whole.get(), 32u << 20); }},
        {"sym-s64", true, [&] { sym(sym_whole.get(), 64u << 20); }},
        {"sym-whole", true, [&] { sym(sym_whole.get(), ~std::size_t{0}); }},
        {"lib-p64-fb32", true, [&] { lib(64u << 20, 32); }},
        {"lib-p32-fb32", true, [&] { lib(32u << 20, 32); }},
        {"lib-p64-fb66", true, [&] { lib(64u << 20, 66); }},
        {"rs", false, rs},
        {"fold", false, [&] { fold_lib(full_lib); }},
        {"foldvec", false, [&] { fold_vec(full_vec); }},
        {"ag-p2p", false, ag_p2p},
        {"ag-coll", false, ag_coll},
        {"rs+fold+agp2p", true, [&] { rs(); fold_lib(full_lib); ag_p2p(); }},
        {"rs+foldvec+agp2p", true, [&] { rs(); fold_vec(full_vec); ag_p2p(); }},
        {"rs+foldvec+agcoll", true, [&] { rs(); fold_vec(full_vec); ag_coll(); }},
        {"agwhole+foldvec", true, [&] { agwhole_pipe(1, full_vec); }},
        {"agwhole4+foldvec32", true, [&] { agwhole_pipe(4, 32); }},
        {"agwhole8+foldvec32", true, [&] { agwhole_pipe(8, 32); }},
        {"nccl-rs+ag", true,
         [&] {
           grouped([&](int r) {
             CHECK_NCCL(ncclReduceScatter(b[r].in, b[r].out + r * c, c, ncclFloat32, ncclSum, group.comm(r),
                                          b[r].stream));
           });
           ag_coll();
         }},
    };
    std::vector<schedule> scheds;
    for (auto& s : all)
      if (s.name == "nccl" || only.empty() || only.find("," + s.name + ",") != std::string::npos) scheds.push_back(s);

    // Wait for every rank's streams, or report a hang and leave (a kernel spinning at a barrier never ends).
    std::string current = "setup";
    const auto sync_all = [&] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      for (int r = 0; r < P; ++r) {
        CHECK_CUDA(cudaSetDevice(r));
        for (cudaStream_t st : {b[r].stream, b[r].side}) {
          cudaError_t e;
          while ((e = cudaStreamQuery(st)) == cudaErrorNotReady) {
            if (std::chrono::steady_clock::now() > deadline) {
              std::printf("HUNG: %s did not finish within 20 s on rank %d\n", current.c_str(), r);
              std::fflush(stdout);
              std::_Exit(3);
            }
          }
          CHECK_CUDA(e);
        }
        CHECK_CUDA(cudaDeviceSynchronize());
      }
    };
    // ncclAllReduce's output is the reference.
    scheds[0].enqueue();
    sync_all();
    unsigned long long* bad = nullptr;  // pinned, mapped: read by the host after each count
    CHECK_CUDA(cudaHostAlloc(&bad, sizeof(*bad), cudaHostAllocMapped | cudaHostAllocPortable));
    std::vector<std::string> verdict(scheds.size(), "part");
    for (std::size_t k = 0; k < scheds.size(); ++k) {
      if (!scheds[k].full) continue;
      current = scheds[k].name;
      on_ranks([&](int r) { CHECK_CUDA(cudaMemsetAsync(b[r].out, 0xA5, n * sizeof(float), b[r].stream)); });
      scheds[k].enqueue();
      sync_all();
      unsigned long long total = 0;
      on_ranks([&](int r) {
        *bad = 0;
        count_mismatches<<<1024, 256>>>(reinterpret_cast<const unsigned*>(b[r].out),
                                        reinterpret_cast<const unsigned*>(b[r].ref), n, bad);
        CHECK_CUDA(cudaDeviceSynchronize());
        total += *bad;
      });
      verdict[k] = total == 0 ? "ok" : std::to_string(total) + " MISMATCHED";
    }

    const auto sample = [&](const schedule& s) {
      current = s.name;
      *release = 0;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      cudaEvent_t start, stop;
      CHECK_CUDA(cudaSetDevice(0));
      CHECK_CUDA(cudaEventCreate(&start));
      CHECK_CUDA(cudaEventCreate(&stop));
      int* d_release = nullptr;
      int* d_expired = nullptr;
      CHECK_CUDA(cudaHostGetDevicePointer(&d_release, release, 0));
      CHECK_CUDA(cudaHostGetDevicePointer(&d_expired, expired, 0));
      hold<<<1, 1, 0, b[0].stream>>>(d_release, d_expired);
      CHECK_CUDA(cudaEventRecord(b[0].ev[60], b[0].stream));
      CHECK_CUDA(cudaEventRecord(start, b[0].stream));
      CHECK_CUDA(cudaSetDevice(1));
      CHECK_CUDA(cudaStreamWaitEvent(b[1].stream, b[0].ev[60], 0));
      s.enqueue();
      CHECK_CUDA(cudaSetDevice(1));
      CHECK_CUDA(cudaEventRecord(b[1].ev[61], b[1].stream));
      CHECK_CUDA(cudaSetDevice(0));
      CHECK_CUDA(cudaStreamWaitEvent(b[0].stream, b[1].ev[61], 0));
      CHECK_CUDA(cudaEventRecord(stop, b[0].stream));
      *release = 1;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      sync_all();
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      CHECK_CUDA(cudaEventDestroy(start));
      CHECK_CUDA(cudaEventDestroy(stop));
      return 1000.0 * ms;
    };
    for (int w = 0; w < 3; ++w)
      for (auto& s : scheds) sample(s);
    std::vector<std::vector<double>> us(scheds.size());
    for (int round = 0; round < rounds; ++round)
      for (std::size_t k = 0; k < scheds.size(); ++k) {
        const std::size_t i = (k + round) % scheds.size();
        us[i].push_back(sample(scheds[i]));
      }
    const double bytes = static_cast<double>(n) * sizeof(float);
    std::printf("\n== %d MiB per rank (%zu floats), %d rounds%s\n", mib, n, rounds,
                *expired ? " (A HOLD EXPIRED: some samples include launch time)" : "");
    std::printf("%-22s %9s %9s %9s %9s %9s %8s  %s\n", "schedule", "median", "p25", "p75", "min", "busbw", "vs nccl",
                "check");
    for (std::size_t k = 0; k < scheds.size(); ++k) {
      std::vector<double> ratio;
      for (int i = 0; i < rounds; ++i) ratio.push_back(us[0][i] / us[k][i]);
      const double m = median_of(us[k]);
      std::printf("%-22s %9.1f %9.1f %9.1f %9.1f %9.1f %7.3fx  %s\n", scheds[k].name.c_str(), m, quantile(us[k], 0.25),
                  quantile(us[k], 0.75), *std::min_element(us[k].begin(), us[k].end()), bytes / (m * 1e3),
                  median_of(ratio), verdict[k].c_str());
    }
    std::fflush(stdout);
    CHECK_CUDA(cudaFreeHost(bad));
    on_ranks([&](int r) {
      CHECK_CUDA(cudaDeviceSynchronize());
      cudaFree(b[r].in);
      cudaFree(b[r].out);
      cudaFree(b[r].ref);
      cudaFree(b[r].stage);
    });
  }
  return 0;
}
