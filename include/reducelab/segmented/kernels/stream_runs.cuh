// reduce_by_key's stream path, for long runs (any functor; agent/run_stretch.cuh keeps a non-commutative one's items in
// input order): a resident grid whose warps each stream a contiguous stretch of keys and values
// (agent/run_stretch.cuh), a block's 8 warps one tile of consecutive stretches.
//
// A block takes tiles blockIdx.x, blockIdx.x + gridDim.x, ...; for each, its warps stream their stretches and keep
// the runs they hand out in shared memory (a stash: keys at their heads, values where they close), and the block joins
// its warps in order and publishes its head count and the run in progress at its end. The tile's runs then wait in
// their stash while the block streams its next tile into the other one: only after that does its warp 0 look back
// over the tiles before the waiting tile (grid/segment_carries.cuh, the one-pass kernel's protocol) for the runs
// before it and for the run in progress at its start, and each warp store the waiting tile's stashed runs at their
// places, in coalesced stores, and the value of the run its first head closes. Why deferred: a look-back waits for
// every tile before it to have streamed and published, and a block that waited there loaded nothing meanwhile; one
// tile later they have long published. A warp whose stretch holds more runs than its part of the stash streams the
// stretch again once it knows its place, storing the runs past it directly (correct at any run length; the keys'
// sample, block/run_density.cuh, keeps dense keys away from this kernel, so it is rare).
//
// A tile's look-backs wait only on tiles below it, and before a block publishes tile t it waits only on the look-backs
// of t - gridDim.x: so, by induction on the tile index, every tile is published, provided every block of the grid is
// resident at once (the grid is the occupancy calculator's blocks per SM times the SMs, as the merge-path pass's is).
#pragma once

#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/grid/dependent_launch.cuh"
#include "reducelab/segmented/agent/run_stretch.cuh"
#include "reducelab/segmented/block/run_density.cuh"
#include "reducelab/segmented/grid/segment_carries.cuh"
#include "reducelab/segmented/tuning.hpp"

#include <cub/util_type.cuh>

namespace reducelab::segmented::kernels {

/// What a launch of the stream path does with the keys' sample: `always` and `always_short_runs` skip it and work
/// with the policy's lanes for long or for short runs (tests and harnesses); `if_long` works only when the sample's
/// runs average at least the policy's min_mean_run, with the lanes the sample asks for (block/run_density.cuh).
/// Either way its block 0 publishes the choice.
enum class run_sample { always, always_short_runs, if_long };

/// Streams a warp's stretch with the lanes for short runs or for long ones (tuning::by_key_stream_policy); pairs for
/// which the policy compiles only one width take the short-run lanes at every length.
template <class PolicyT, class KeyT, class T, class OpT, class EqualT, class EmitT>
__device__ __forceinline__ agent::run_stretch_pieces<KeyT, T> stream_stretch(bool short_runs, const KeyT* keys,
                                                                            const T* values, long long begin,
                                                                            long long end, OpT op, EqualT equal,
                                                                            EmitT& emit) {
  constexpr int short_chunks = PolicyT::short_run_chunks, short_items = PolicyT::short_run_items;
  if constexpr (PolicyT::template both_widths<KeyT, T>) {
    if (!short_runs) {
      return agent::stream_run_stretch<PolicyT::chunks, PolicyT::items>(keys, values, begin, end, op, equal, emit);
    }
  }
  return agent::stream_run_stretch<short_chunks, short_items>(keys, values, begin, end, op, equal, emit);
}

/// The stretch that spreads n items over warps_per_round warps in as few full rounds as stretches of at most `longest`
/// items make, in whole chunk groups: the host's choice for the launch (detail/dispatch.cuh) and long_run_stretch's.
constexpr long long balanced_stretch(long long n, long long warps_per_round, long long longest, long long group) {
  const long long rounds = (n + warps_per_round * longest - 1) / (warps_per_round * longest);
  const long long even = (n + warps_per_round * rounds - 1) / (warps_per_round * rounds);
  return (even + group - 1) / group * group;
}

/// The long-run choice's stretch, which the host works out at launch and passes to the kernel (stretch_long_runs): as
/// few full rounds of warps_per_round warps as stretches of at most the policy's long_run_warp_stretch make, and never
/// shorter than the launch's `stretch` (whose tiles the workspace's slots count); the launch's where
/// long_run_warp_stretch is 0. Passed rather than worked out by every block: one register fewer held across the tile
/// (tuning.hpp has what that saves).
template <class PolicyT, class KeyT, class T>
constexpr long long long_run_stretch(long long n, long long warps_per_round, long long stretch) {
  constexpr long long longest = PolicyT::template long_run_warp_stretch<KeyT, T>;
  if constexpr (longest > 0) {
    static_assert(longest % PolicyT::chunk_group == 0, "reducelab: long_run_warp_stretch must be whole chunk groups");
    const long long chosen = balanced_stretch(n, warps_per_round, longest, PolicyT::chunk_group);
    return chosen > stretch ? chosen : stretch;
  }
  return stretch;
}

template <class PolicyT, class KeyT, class T>
struct stream_runs_storage {
  static constexpr int warps = PolicyT::threads / 32;
  static constexpr int stash = PolicyT::template stash_runs<KeyT, T>;  // runs per warp and tile
  /// One tile's runs and joins, kept until their places are known.
  struct tile_stash {
    KeyT keys[warps][stash];    // the runs each warp's heads start, in order
    T values[warps][stash];     // the runs each warp closes (after its first head), in order
    agent::run_stretch_pieces<KeyT, T> pieces[warps];
    T crossing[warps];          // the run each warp's first head closes, without the tile's carry-in if flagged
    bool uses_carry_in[warps];  // no head before it in the tile
    int heads_before[warps];    // in the tile
    int tile_heads;
    bool tile_has_head;
    T tile_carry;               // the run in progress at the tile's end (without the carry-in if no head)
  };
  tile_stash tiles[PolicyT::stashes];  // a block's tile streams into one while its tile before waits in the other
  // The waiting tile's look-backs (warp 0's), for every warp, by the slot of the tile that streamed meanwhile: warp 0
  // writes the next tile's before the slowest warp may have read these (no barrier between its stores and the next
  // tile's streaming).
  long long runs_before[PolicyT::stashes];
  T carry_in[PolicyT::stashes];
};

/// Stores a warp's runs in its part of the stash, up to its capacity (pass 1), or the runs past it at their places
/// in the output (pass 2, `first` the output index of the warp's first head).
template <bool ToStash, class KeyT, class T>
struct run_emitter {
  KeyT* keys;
  T* values;
  int stash;
  long long first;
  __device__ __forceinline__ void key(int index, const KeyT& k) const {
    if (ToStash ? index < stash : index >= stash) keys[ToStash ? index : first + index] = k;
  }
  __device__ __forceinline__ void value(int index, const T& v) const {
    if (ToStash ? index < stash : index >= stash) values[ToStash ? index : first + index] = v;
  }
};

/// Tiles of PolicyT::threads / 32 warps x `stretch` items over [0, n) (stretch: a multiple of chunk_group, at
/// most PolicyT::warp_stretch<KeyT, T>, whose runs the stash holds; where the policy's long_run_warp_stretch is on,
/// the long-run choice's tiles are longer: stretch_long_runs, long_run_stretch's); keys and values aligned to 4 items.
/// MinBlocks: the __launch_bounds__ minimum, PolicyT::min_blocks<KeyT, T> (a parameter, so the kernel's name states it).
template <class PolicyT, int MinBlocks, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
__global__ void __launch_bounds__(PolicyT::threads, MinBlocks)
    stream_runs(const KeyT* __restrict__ keys, const T* __restrict__ values, long long n, KeyT* __restrict__ unique_keys,
                T* __restrict__ values_out, NumRunsT* num_runs, OpT op, EqualT equal, run_sample sample,
                block::run_choice choice, long long stretch, grid::carry_slots<long long> counts,
                grid::carry_slots<T> carries, long long stretch_long_runs) {
  using storage_t = stream_runs_storage<PolicyT, KeyT, T>;
  __shared__ cub::Uninitialized<storage_t> raw;  // never constructed (a value type may have default initializers)
  storage_t& s = raw.Alias();
  // Block 0 chooses (and sets the one-pass kernel's tile counter, which that kernel reads after the choice); the
  // others wait for its choice.
  __shared__ int works;
  if (blockIdx.x == 0) {
    const int chosen = sample == run_sample::always ? block::run_choice::stream_path
                       : sample == run_sample::always_short_runs
                           ? block::run_choice::stream_path_short_runs
                           : block::run_choice_for(block::sampled_heads(keys, n, equal), PolicyT::min_mean_run,
                                                   PolicyT::short_run_mean);
    if (threadIdx.x == 0) {
      if (choice.next_tile != nullptr) atomicExch(choice.next_tile, static_cast<unsigned long long>(choice.first_wave));
      __threadfence();
      ::reducelab::grid::publish(choice.chosen, chosen, choice.epoch);
    }
  }
  if (threadIdx.x == 0) works = choice.wait();
  __syncthreads();
  // The one-pass kernel, launched after this one as its programmatic dependent, may start once every block of this
  // grid has passed here (or left): where the choice is the stream path, its blocks then leave while this grid works
  // (detail/dispatch.cuh says what that saved). Not before the choice: where the one-pass kernel works, its blocks
  // would start on SMs that still hold this grid's waiting blocks, and the compare's held-stream samples of runs of
  // one moved between ~110 and ~121-130 us (H100, 2^24, 22c6117), where stream order gave 112-118 us.
  ::reducelab::grid::release_dependent_launch();
  if (works == block::run_choice::one_pass) return;
  const bool short_runs = works == block::run_choice::stream_path_short_runs;

  constexpr int warps = storage_t::warps;
  if (!short_runs) stretch = stretch_long_runs;
  const long long tile = warps * stretch;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const long long tiles = (n + tile - 1) / tile;
  const T id = identity_of<OpT, T>();

  // Tile t streams into one stash while the block's tile before it, t - gridDim.x, waits in the other for its place:
  // that tile's look-backs and stores come after t has streamed and published, so the tiles before it have long
  // published too, and the look-backs find what they need without waiting for them. Against one stash of twice the
  // size, placed at once: 1.04-1.05x at runs of 8, 2^26, but 0.95-1.02x at 2^24 (H100, stop 75; tuning.hpp's stashes).
  static_assert(PolicyT::stashes == 2, "reducelab: the stream path alternates two stashes");
  int slot = 0;  // the stash tile t streams into
  for (long long t = blockIdx.x; t - gridDim.x < tiles; t += gridDim.x, slot ^= 1) {
    typename storage_t::tile_stash& now = s.tiles[slot];
    const typename storage_t::tile_stash& w = s.tiles[slot ^ 1];
    const long long waiting = t - gridDim.x;  // the tile whose runs wait in the other stash
    const bool last_tile = waiting + 1 == tiles;
    if (t < tiles) {
      const long long begin = t * tile + warp * stretch;
      const long long end = begin + stretch < n ? begin + stretch : n;
      if (begin < n) {
        run_emitter<true, KeyT, T> stash{now.keys[warp], now.values[warp], storage_t::stash, 0};
        const auto p = stream_stretch<PolicyT>(short_runs, keys, values, begin, end, op, equal, stash);
        if (lane == 0) now.pieces[warp] = p;
      }
    }
    // The waiting tile's look-backs, by warp 0 alone once it has streamed (grid::warp_look_back): no block barrier per
    // poll, and the one barrier below serves them and tile t's join. Against the block-wide walks (three barriers a
    // poll), before the stashes were two: 1.00-1.03x (H100, stop 74, results/NVIDIA_H100_80GB_HBM3-segmented/
    // by-key-warp-look-back.txt). The whole block summing the run counts of the tiles since its own tile before, in
    // place of the walk, ran 0.94-1.04x against it (by-key-deferred-placement.txt). With this one barrier a tile in
    // place of two (thread 0 joins tile t while the other warps store the waiting tile): 1.00-1.02x at 2^26, 1.01x at
    // runs of 8, 0.99-1.03x at 2^24; the look-backs before streaming instead, 0.94-1.01x (H100, stop 76,
    // by-key-one-barrier.txt).
    if (waiting > 0 && warp == 0) {
      const long long before = grid::warp_look_back(counts, waiting, grid::count_sum{});
      if (lane == 0) {
        s.runs_before[slot] = before;
        grid::publish_tile_prefix(counts, waiting, before + w.tile_heads);
      }
      if (w.tile_has_head || last_tile) {
        const T carry = grid::warp_look_back(carries, waiting, op);
        if (lane == 0) s.carry_in[slot] = carry;
      }
    }
    __syncthreads();

    // Join tile t's warps in order (thread 0): its heads, and the run in progress after each warp.
    if (t < tiles && threadIdx.x == 0) {
      int heads = 0;
      bool any = false;
      T carry = id;
      for (int i = 0; i < warps && t * tile + i * stretch < n; ++i) {
        const agent::run_stretch_pieces<KeyT, T>& r = now.pieces[i];
        now.heads_before[i] = heads;
        if (r.heads > 0) {
          now.crossing[i] = op(carry, r.leading);
          now.uses_carry_in[i] = !any;
          carry = r.trailing;
          any = true;
        } else {
          carry = op(carry, r.leading);
        }
        heads += r.heads;
      }
      now.tile_heads = heads;
      now.tile_has_head = any;
      now.tile_carry = carry;
      grid::publish_tile_runs(counts, carries, t, heads, carry, any);
    }
    if (waiting < 0) {  // (the same in every thread of the block)
      // Warp 0's lanes read what thread 0 joins here (tile_has_head) in their look-backs one round on, before that
      // round's barrier: this warp barrier orders them, as the one at the loop's end does in later rounds. Without it
      // compute-sanitizer racecheck reported the pair (H100, stop 77, b4292fc: racecheck-one-barrier-b4292fc.log).
      __syncwarp();
      continue;
    }
    const long long runs_before = waiting > 0 ? s.runs_before[slot] : 0;
    const T carry_in = waiting > 0 && (w.tile_has_head || last_tile) ? s.carry_in[slot] : id;

    // Place this warp's runs of the waiting tile: keys from its first head on, values of the runs it closes after its
    // first head, then the value of the run its first head closes.
    const long long begin = waiting * tile + warp * stretch;
    if (begin < n) {
      const long long end = begin + stretch < n ? begin + stretch : n;
      const agent::run_stretch_pieces<KeyT, T> p = w.pieces[warp];
      const long long first = runs_before + w.heads_before[warp];  // the run its first head starts
      const int stashed_keys = p.heads < storage_t::stash ? p.heads : storage_t::stash;
      const int closed = p.heads > 0 ? p.heads - 1 : 0;
      const int stashed_values = closed < storage_t::stash ? closed : storage_t::stash;
      for (int j = lane; j < stashed_keys; j += 32) unique_keys[first + j] = w.keys[warp][j];
      for (int j = lane; j < stashed_values; j += 32) values_out[first + j] = w.values[warp][j];
      if (p.heads > storage_t::stash) {  // the stash overflowed: stream again, storing the rest directly
        run_emitter<false, KeyT, T> direct{unique_keys, values_out, storage_t::stash, first};
        stream_stretch<PolicyT>(short_runs, keys, values, begin, end, op, equal, direct);
      }
      if (lane == 0 && p.heads > 0 && first > 0) {
        values_out[first - 1] = w.uses_carry_in[warp] ? op(carry_in, w.crossing[warp]) : w.crossing[warp];
      }
    }
    if (last_tile && threadIdx.x == 0) {  // the input's last run
      const long long total = runs_before + w.tile_heads;
      values_out[total - 1] = w.tile_has_head ? w.tile_carry : op(carry_in, w.tile_carry);
      *num_runs = static_cast<NumRunsT>(total);
    }
    // A warp reads and writes only its own part of a stash (thread 0, which joins the others' pieces, does so after
    // the next barrier; warp 0's next look-backs read what thread 0 joined in this one), and runs_before and carry_in
    // are kept by slot: no block barrier here, only the warp's, before its lanes stream into the stash whose runs they
    // have just stored.
    __syncwarp();
  }
}

}  // namespace reducelab::segmented::kernels
