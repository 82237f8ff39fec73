#include "comparisons/timing/engine.hpp"

#include "reducelab/core/error.hpp"

#include <chrono>
#include <numeric>
#include <random>
#include <stdexcept>

namespace reducelab::timing {

const char* to_string(cache_state c) { return c == cache_state::cold ? "cold" : "hot"; }

const char* to_string(clock_method m) {
  switch (m) {
    case clock_method::events_held: return "cuda events, held stream";
    case clock_method::events_idle_stream: return "cuda events, idle stream";
    case clock_method::host_clock: return "host steady_clock around the synchronous call";
  }
  return "?";
}

std::vector<std::vector<std::size_t>> interleaved_schedule(std::size_t works, std::size_t rounds, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::size_t>> schedule(rounds, std::vector<std::size_t>(works));
  for (auto& round : schedule) {
    std::iota(round.begin(), round.end(), std::size_t{0});
    // Fisher-Yates with our own index draw: std::shuffle's draws are implementation-defined, and the order
    // should be the same on every machine for a given seed.
    for (std::size_t i = works; i > 1; --i) std::swap(round[i - 1], round[rng() % i]);
  }
  return schedule;
}

engine::engine(cudaStream_t stream, std::size_t l2_bytes) : stream_(stream), flush_(l2_bytes) {
  CUDA_TRY(cudaEventCreate(&start_));
  CUDA_TRY(cudaEventCreate(&stop_));
}

engine::~engine() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

double engine::sample(const timed_work& work, const measurement_plan& plan, work_samples& into) {
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    if (plan.cache == cache_state::hot) work.run(stream_);  // untimed: leaves its data resident in L2
    else flush_.enqueue(plan.flush, stream_);
    if (work.host_synchronous) {
      into.clock = clock_method::host_clock;
      CUDA_TRY(cudaStreamSynchronize(stream_));  // the flush (or the untimed run) is not part of the sample
      const auto t0 = std::chrono::steady_clock::now();
      work.run(stream_);
      const auto t1 = std::chrono::steady_clock::now();
      // A host clock is only right for work that is finished when the call returns. One that returns as its
      // last kernel retires is: reducelab::reduce(host) returns on a flag the kernel raises after writing the
      // result, and the stream reports idle 2.0-2.5 µs later (median; up to 24 µs now and then:
      // scripts/harness/host_call_residual.cu, H100, b97a408). Work still queued for longer than
      // host_clock_allowance and longer than the call itself took discards the sample; max_attempts in a row are
      // refused.
      CUDA_TRY(cudaStreamSynchronize(stream_));
      const auto busy_after = std::chrono::steady_clock::now() - t1;
      if (busy_after > host_clock_allowance && busy_after > t1 - t0) {
        ++into.discarded;
        if (attempt + 1 == max_attempts)
          throw std::runtime_error("timing '" + work.name + "': it is timed with the host clock as synchronous, but "
                                   "returned with work still queued on its stream " + std::to_string(max_attempts) +
                                   " times in a row; time it with events instead");
        continue;
      }
      return std::chrono::duration<double, std::micro>(t1 - t0).count();
    }
    into.clock = plan.hold ? clock_method::events_held : clock_method::events_idle_stream;
    if (plan.hold) hold_.hold(stream_);
    CUDA_TRY(cudaEventRecord(start_, stream_));
    work.run(stream_);
    CUDA_TRY(cudaEventRecord(stop_, stream_));
    if (plan.hold) hold_.release();
    CUDA_TRY(cudaEventSynchronize(stop_));
    if (plan.hold && hold_.timed_out()) {
      ++into.discarded;
      continue;
    }
    float ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) * 1e3;
  }
  throw std::runtime_error("timing '" + work.name + "': the held stream timed out " + std::to_string(max_attempts) +
                           " times in a row (does it synchronize? then it must be marked host-synchronous)");
}

std::vector<work_samples> engine::measure(const std::vector<timed_work>& works, const measurement_plan& plan) {
  std::vector<work_samples> out(works.size());
  for (const auto& w : works)
    for (int i = 0; i < plan.warmup_runs; ++i) w.run(stream_);
  CUDA_TRY(cudaStreamSynchronize(stream_));
  for (const auto& round : interleaved_schedule(works.size(), static_cast<std::size_t>(plan.rounds), plan.seed))
    for (const std::size_t i : round) out[i].us.push_back(sample(works[i], plan, out[i]));
  return out;
}

}  // namespace reducelab::timing
