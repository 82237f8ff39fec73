// The tuning of reducelab::segmented_reduce and reduce_by_key, as data (the scalar reduction's table is
// reducelab/tuning/; this one is separate because the kernels and their trade-offs are different).
//
// MOSTLY UNTUNED: the template parameters were chosen by reasoning (shared memory per block, items per thread that
// amortize one block scan per tile), not measured, except where a line below gives a measurement. They stand until
// `reducelab tune` covers the segmented kernels. With the default pieces_min_average of 0 the tile walk does not run,
// so items_per_thread matters only to a policy that raises it.
//
// The measurements: scripts/harness/segmented_carries.cu and variants of it, on the H100, 2^24 int32 in uniform
// segments of 1 to 2^20 plus the harness's giant and mixed layouts, same run. Before 540a509 the harness's plus did not
// declare itself commutative, so the figures marked (in order) were taken on the in-order path of the pieces walk
// (contiguous chunks per lane, no 16-byte loads), not the one plus, maximum and the other commutative functors take.
//
//   block_threads      threads per block of the main (merge-path) kernel
//   items_per_thread   path steps (an element or a segment end) each thread walks per tile; a tile is
//                      block_threads * items_per_thread steps, staged in shared memory (values and segment ends)
//   long_run_items     a run of at least this many elements of one segment inside a block is reduced by the whole
//                      block (the pieces walk; in the tile walk it skips the tile machinery); shorter ones go to a
//                      warp. 4-byte values: 16 KiB + 1 value, so that a piece of 4096 values stays with a warp. In
//                      the exploration runs on the H100 (same run, two passes), against the one-tile default (2048),
//                      it was 8 % faster at length 4096 (35.0-35.3 against 38.1-38.3 µs) and
//                      the same elsewhere; 8192 cost 5 % at 2^16 and 32768 cost 30 % from 2^16 up (the block waits for
//                      the warp that holds its short piece)
//   min_blocks_per_sm  the main kernel's __launch_bounds__ minimum, which caps its registers: 4 (64 registers) for
//                      every value size. 4-byte values, against 5 (48 registers, where ptxas spills 32 bytes), same run
//                      on the H100 and the H200 (results/*-segmented/lookback-vs-fixup.txt): 9-21 % faster from length
//                      256 to 2^20, 2-12 % on the giant and mixed layouts, within 5 % at 8, 7-11 % slower at 32 and
//                      11-12 % slower at 1. 3 (with 8 loads in flight) was up to 5 % faster than 4 from 256 up but 1.4x
//                      slower at length 1 (H100). 8-byte values (double), against 5, where ptxas spilled 568-604
//                      bytes, same run at 12492b5, two passes (results/*-segmented/policy-8byte.txt), H100 / H200:
//                      1.04-1.05x / 1.03x at 8, 1.07-1.09x / 1.09-1.11x at 32, 1.13-1.21x / 1.14-1.22x from 256 up,
//                      1.10-1.13x / 1.11-1.13x on the giant layout, 1.15-1.17x / 1.14-1.15x on the mixed one, and
//                      0.96x / 0.95x at length 1. Again on the H200 at stop 49, since the stream walk and the short
//                      pass took the long and mid-length averages (results/NVIDIA_H200-segmented/min-blocks-per-sm.txt,
//                      2^26, same run): 5 0.90-1.01x the time of 4, 6 0.72-1.00x. CUB's segmented kernel keeps 8
//                      blocks per SM (32 registers; Nsight Compute, results/NVIDIA_H200-segmented/ncu-e7c4b38/), but a
//                      pure read on this grid reaches 87-92 % of peak there (floors-2e26.txt)
//   blocks_per_sm      grid = blocks_per_sm x SMs (0: what the occupancy calculator allows). More blocks than are
//                      resident (several waves) was slower at every length: 2x cost up to 16 %, 4x up to 42 %.
//                      Again at stop 39 with the stream walk, on the H200 (results/NVIDIA_H200-segmented/
//                      waves-and-l2-prefetch.txt): 2 waves 1.00-1.22x the one-wave time, 4 waves 1.06-1.66x, 16 up
//                      to 4.45x (each block pays the search's round trips and the look-back however short its stretch)
//   pieces_min_average a block whose stretch averages at least this many elements per segment reduces it segment by
//                      segment (agent/segment_pieces.cuh) instead of in merge-path tiles. 0 (pieces always): the pieces
//                      walk beat the tiles at every uniform length measured, 1 to 2^20 (in order: 1.2x at length 1,
//                      2.5x at 8); the tiles stay for a policy that sets it higher
//   pieces_items_per_lane  the pieces walk gives a segment about average / this many lanes (a power of two, 1..32).
//                      4-byte values: 32, measured with pieces_loads_in_flight below (the in-order path had measured 8
//                      best, but plus and the other commutative functors never take it). 8-byte values keep 8, with 4
//                      loads in flight: 16 items with 8 loads (and pieces of 2049 to the block) was up to 4 % faster
//                      from 256 up but 1.2x / 1.3x slower at length 32 (H100 / H200; policy-8byte.txt). A
//                      non-commutative functor's lane folds a contiguous chunk of about this many values; in groups
//                      of 2 to 16 lanes it reads the chunk in 16-byte vectors where the type allows (stop 41,
//                      segment_pieces.cuh, fold_run_in_order). Measured again at 2^26 at stop 41 (results/
//                      NVIDIA_H100_80GB_HBM3-segmented/group-knobs-2e26.txt): for int32, 16 was 4-8 % faster at lengths
//                      48-128 and 8 was 10-13 % faster at 48-64, but both were slower at 32 and 8 was 1.3x slower at
//                      16, so 32 stays
//   pieces_loads_in_flight  16-byte loads a lane of the pieces walk issues before it folds any, in groups of 2 lanes
//                      and more, warps and the whole block; pieces_lone_loads_in_flight is that of a group of one lane
//                      (the short-segment walk, whose registers it bounds). 4-byte values: 8 and 4. Against the
//                      previous 4-byte policy (8 items per lane, 4 and 4 loads, long_run_items 2048), same run at
//                      aa909da (results/*-segmented/policy-4byte.txt), H100 / H200: 1.02x / 1.03x at length 1, 1.04x
//                      at 8, 1.11x / 1.12x at 32, 1.05x / 1.07x at 256, 1.17x / 1.14x at 4096, 1.02x / 0.98x at 2^16,
//                      1.05x / 1.03x at 2^20, 1.07x / 1.06x on the giant layout, 1.18x / 1.24x on the mixed one, and
//                      0.97x at 1000 on both (16-lane groups instead of 32). In the exploration runs on the H100, 8
//                      loads for lone lanes too cost 25 % at length 1
//   pieces_in_order_vectors  16-byte loads per lane of a warp tile where a non-commutative functor's warp and block
//                      pieces are read in warp tiles (agent/in_order_tiles.cuh): 4 (a warp's stage is 2.3 KiB).
//                      Stop 51, affine_compose over affine32 at 2^26 on the H200, same run against main (results/
//                      NVIDIA_H200-segmented/in-order-tiles.txt, call 2; the tiles still in the group loop then): 4
//                      1.08x at 4096, 1.03x at 2^16, 1.04-1.05x at 2^20, 1.10x at 2048; 2 0.998-0.999x, 1.00x,
//                      1.02x and 0.98x there (both about 2x at 1024)
//   pieces_short_average  a stretch whose segments average fewer elements than this takes the short-segment walk
//                      (agent/segment_pieces.cuh, reduce_short_pieces: a lane per piece, pieces_short_batch pieces per
//                      lane per round, pieces_short_unroll elements of each loaded at once, the next round's offsets
//                      loaded while this round's values are in flight). 0: never (the one-lane groups of the pieces
//                      walk instead). Same runs on the H100 at 749abe3 (results/NVIDIA_H100_80GB_HBM3-segmented/
//                      short-segments.txt), uniform lengths, against 0:
//                      4-byte values, 2 pieces of 4 elements: 1.67x at length 1 (139.8 against 233.4 µs), 1.52x at 2,
//                      1.42x at 3, 1.18-1.22x at 4, 1.28x at 5, 1.20-1.23x at 6, 1.17-1.19x at 7, but 0.94-0.95x at 8
//                      (48.2-49.0 against 46.0-46.4 µs), the same (within 4 %) on the giant and mixed layouts; with the
//                      line at 6, lengths 6 and 7 kept the old times, and at 8 the walk is the slower one: 7, between.
//                      4 pieces of 2 elements were within 5 % of 2 of 4; 8 pieces (which spill) 1.3-1.9x slower.
//                      8-byte values, 2 pieces of 2 elements: 1.21x at length 1 (177.1 against 213.5 µs), 1.18x at 2,
//                      1.02x at 4, 0.94x at 6: 4. At 774e03c (line at 4, run F and the H200's file): 1.06x at 3,
//                      0.95x / 0.98x at 4 (H100 / H200), so 3 may be the better line. Wider values keep 4, unmeasured.
//                      Up to length 8 a thread-per-segment kernel (a thread for each segment: right for uniform lengths
//                      only) is still 1.2-1.3x faster (int32: 112.0 µs at length 1, 34.3 at 8)
//   stream_min_average  a block whose stretch averages at least this many elements per segment, and holds at most
//                      agent::max_stream_pieces (128) pieces, reads it as one stream (agent/stream_pieces.cuh: equal
//                      shares of 16-byte vectors per warp, pieces closed where they end) instead of piece by piece,
//                      when the layout is one array, the functor commutative and the type a number read in 16-byte
//                      vectors (stream_pieces.cuh, streamable, says why argmax's pairs do not stream).
//                      Same run on the H100 at 5edb052 + the stream walk, two passes (results/NVIDIA_H100_80GB_HBM3-
//                      segmented/stream-pieces.txt), against the pieces walk: 512 against 128, 256 and 1024. int32:
//                      1.10-1.12x at 1000 (31.2-31.3 against 34.8-35.2 us), 1.11-1.12x at 2^16 (30.0-30.3 against
//                      33.6), 1.03x at 2^20, within 1 % at 256, 400, 2048, 4096 and the giant and mixed layouts. double:
//                      1.06x at 1000, 1.07x at 2048, 1.02-1.04x at 4096 and 2^16, within 1 % elsewhere. 128 was 1.03-
//                      1.05x slower at 256 (int32 and double); 1024 missed length 1000. Room for 512 pieces, so that
//                      stretches of 128- to 256-element segments stream too (from an average of 128 or 256): no gain
//                      at any length, 1.03x slower at 256 from 128 (stream-pieces.txt, call 5)
//   end_step_weight    how many elements a segment end weighs when the path is cut into the blocks' stretches
//                      (segmented/merge_path.cuh, weighted ends): a block of tiny segments reads an offset and writes
//                      an output per end and walks in tiles, so an unweighted cut (1) gives it the same steps as a
//                      block streaming a long segment and it finishes last. Uniform layouts cut the same way for any
//                      weight. Stop 39, same run, scripts/harness/segmented_carries.cu (plus, two rounds; results/
//                      NVIDIA_H100_80GB_HBM3-segmented/weighted-ends.txt), time against weight 1 on the giant
//                      layout (half the values in one segment, the rest in segments of 8), H100 / H200, 2^26:
//                      int32 weight 4 0.96x / 0.93x, 8 0.93x / 0.89x, 12 0.91x / 0.86x; double weight 4 0.97x /
//                      0.97x, 6 0.96x / 0.96x, 8 0.96x / 0.95x, but 12 1.06x / 1.12x (the giant's blocks then take
//                      too much of it). The mixed layout (lengths 0 to 3000): 0.97-1.01x. Uniform lengths 8 to 4096:
//                      within 1 %. So 8 for 4-byte values and 6 for 8-byte ones; other sizes, unmeasured, stay at 1.
//                      The kernel weighs ends only where long stretches stream (kernels/merge_path_segments.cuh):
//                      affine_compose, which walks them piece by piece, took 1.06x as long on the giant layout at
//                      2^24. In the library's compare, same run on the H100 (weighted-ends-compare-ab.txt): giant at
//                      2^24 (tiny segments of 8) 1.05-1.08x faster for 4-byte values and 1.02x for doubles, empty90
//                      1.00-1.08x; giant at 2^26, whose tiny segments hold 32, 0.99x for plus over 4-byte values
//                      (a block of 32-element segments costs about what a streaming block does), 1.01x for doubles
//   stream_loads_in_flight  16-byte loads per lane of the stream walk before it folds any: 4. int32 with 6 was the
//                      same within 1 %, with 8 the kernel spilled 44 bytes and was 3-10 % slower than the pieces walk;
//                      double with 2 was 1.03-1.13x slower than with 4 (stream-pieces.txt, call 1). On the H200 at
//                      stop 49 (results/NVIDIA_H200-segmented/stream-loads-in-flight.txt, 2^26, same run): 6 within
//                      0.95-1.02x of 4 everywhere, 8 0.88-0.98x for plus over int32 and float at 4096, 2^16, zipf
//
// Tried and left out (same harness, H100): loading the pieces walk's next round of bounds while this round's values are
// in flight (as the short walk does): 88 bytes of spills, and 3-17 % slower from length 8 up; staging the stretch's
// segment starts in the (otherwise idle) tile buffer with one coalesced block load, instead of loading each round's
// offsets before its values: from 1 % faster to 5 % slower for int32 (slower at most lengths) and up to 5 % slower for
// doubles, lengths 8 to 2^20 (short-segments.txt, run G); an L2 prefetch of each block's estimated first 32-128 KiB
// before the search (no faster anywhere, up to 8 % slower); cutting the path into 2, 4 or 8 chunks per block dealt
// round robin, with the look-backs after all of a block's walks (2: up to 13 % slower from 256 up; 8: 1.3-1.7x slower
// everywhere); a dynamic tail (the last 5-30 % of the path in 2-8 chunks per block, taken from an atomic counter as
// blocks finish their stretches, each chunk with its own carry slot; the harness's dyn rows, stop 29): 0.99-1.14x the
// library's time at length 1 and 1.03-2.8x elsewhere (results/NVIDIA_H100_80GB_HBM3-segmented/guided-search.txt);
// a lane's last vectors loaded as an unguarded window that ends at its last one (the guarded loads of fold_share's
// tail keep about three of seven in flight), stop 32: spills where there were none, 3-8 % slower for int32 from
// length 8 up and within 3 % for doubles (results/NVIDIA_H100_80GB_HBM3-segmented/tail-window.txt); stop 49, a block
// mode in the short pass for averages of 1024 to 2^20 (whole segments dealt round robin to one wave of its blocks, or
// one block per segment as CUB does), H200, compare: 1-5 % faster at 4096 for plus/int32 and float, up to 13 % slower
// there and 8-14 % slower at 2^16 (one wave), 0.62-0.91x (a block per segment)
// (results/NVIDIA_H200-segmented/block-mode.txt).
#pragma once

#include <cstddef>
#include <type_traits>

namespace reducelab::segmented::tuning {

template <int BlockThreads, int ItemsPerThread, int LongRunItems, int MinBlocksPerSm, int BlocksPerSm>
struct policy {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 64 && BlockThreads <= 1024, "block_threads: 64..1024, whole warps");
  static_assert(ItemsPerThread >= 1 && ItemsPerThread <= 32, "items_per_thread: 1..32");
  static_assert(LongRunItems >= 1, "long_run_items: at least 1");
  static_assert(MinBlocksPerSm >= 1 && MinBlocksPerSm * BlockThreads <= 2048, "min_blocks_per_sm: 1..2048 / block_threads");
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_steps = BlockThreads * ItemsPerThread;
  static constexpr int long_run_items = LongRunItems;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
  static constexpr int blocks_per_sm = BlocksPerSm;
  static constexpr int pieces_min_average = 0;
  static constexpr int pieces_items_per_lane = 8;
  static constexpr int pieces_loads_in_flight = 4;
  static constexpr int pieces_lone_loads_in_flight = 4;
  static constexpr int pieces_short_average = 0;
  static constexpr int pieces_in_order_vectors = 4;
  static constexpr int pieces_short_batch = 4;
  static constexpr int pieces_short_unroll = 1;
  static constexpr long long stream_min_average = 512;
  static constexpr int stream_loads_in_flight = 4;
  static constexpr long long end_step_weight = 1;
};

// The pieces walk's lists in shared memory (agent/segment_pieces.cuh; block_storage in agent/merge_path_block.cuh):
// the pieces it hands to warps (mid) and to the whole block (long), as indices into the block's stretch. A piece that
// finds its list full stays with the group that found it. A commutative functor's group reads it in 16-byte vectors,
// so 256 and 64 do. Where warps and the block read in warp tiles (a non-commutative functor over a type that tiles a
// 16-byte vector), the group reads it element by element, so the lists hold what a stretch of 2^28 elements on a
// 132-SM GPU hands them (up to about 2000 warp pieces of 256 elements, 330 block pieces of 1536), in 4-byte indices
// (10 KiB). With 256 and 64, affine maps at 2^28 ran at 56 / 48 / 58 % of peak in segments of 1024 / 2048 / 4096; with
// these 81 / 81 / 89 %, and 0.97-1.02x at 2^26 and 2^24 (H200, same run; stop 52,
// results/NVIDIA_H200-segmented/in-order-lists.txt).
struct pieces_list_sizes {
  int warp_pieces;   // the mid list's
  int block_pieces;  // the long list's
};
constexpr pieces_list_sizes pieces_lists(bool warp_tiles) {
  return warp_tiles ? pieces_list_sizes{2048, 512} : pieces_list_sizes{256, 64};
}

/// Items per thread by value size: a tile stages tile_steps values plus tile_steps + 1 eight-byte segment ends, so
/// wider values get fewer items (about 24 KiB of shared memory per block up to 16-byte values).
constexpr int default_items_per_thread(std::size_t value_bytes) {
  return value_bytes <= 4 ? 8 : value_bytes <= 8 ? 6 : value_bytes <= 16 ? 4 : value_bytes <= 32 ? 2 : 1;
}

/// Resident blocks of 256 threads the registers must allow (see min_blocks_per_sm above).
inline constexpr int default_min_blocks_per_sm = 4;

/// The short-segment walk (pieces_short_*): elements per piece read at once, about 16 bytes of each piece.
constexpr int default_short_unroll(std::size_t value_bytes) {
  return value_bytes <= 4 ? 4 : value_bytes <= 8 ? 2 : 1;
}
constexpr int default_short_average(std::size_t value_bytes) { return value_bytes <= 4 ? 7 : 4; }
inline constexpr int default_short_batch = 2;
/// end_step_weight by value size (see its line above): measured for 4- and 8-byte values; others stay unweighted.
constexpr long long default_end_weight(std::size_t value_bytes) {
  return value_bytes == 4 ? 8 : value_bytes == 8 ? 6 : 1;
}

template <std::size_t ValueBytes>
struct default_policy : policy<256, default_items_per_thread(ValueBytes), 256 * default_items_per_thread(ValueBytes),
                               default_min_blocks_per_sm, 0> {
  static constexpr int pieces_short_average = default_short_average(ValueBytes);
  static constexpr int pieces_short_batch = default_short_batch;
  static constexpr int pieces_short_unroll = default_short_unroll(ValueBytes);
  static constexpr long long end_step_weight = default_end_weight(ValueBytes);
};

/// 4-byte values, the measured ones (see long_run_items and the pieces_* lines above).
template <>
struct default_policy<4> : policy<256, 8, 16 * 1024 / 4 + 1, default_min_blocks_per_sm, 0> {
  static constexpr int pieces_items_per_lane = 32;
  static constexpr int pieces_loads_in_flight = 8;
  static constexpr int pieces_lone_loads_in_flight = 4;
  static constexpr int pieces_short_average = default_short_average(4);
  static constexpr int pieces_short_batch = default_short_batch;
  static constexpr int pieces_short_unroll = default_short_unroll(4);
  static constexpr long long end_step_weight = default_end_weight(4);
};

// The short-segment pass (kernels/short_segments.cuh): the largest average segment length, in elements, at which it
// takes a one-array launch from the merge-path pass, by value size, and the longest segment it reduces itself (a
// longer one is left to the merge-path pass). Stop 43, same run on the H100 (scripts/harness/segmented_carries.cu,
// plus, 64-bit offsets; results/NVIDIA_H100_80GB_HBM3-segmented/short-segment-schedules.txt, call 7), the library
// against the merge-path pass alone, int32 at 2^26: lengths 1, 2, 4, 8, 12 1.47x, 1.32x, 1.14x, 1.12x, 1.05x faster
// (90 % of peak at length 1 against 61 %); at 2^24 1.42x to 1.06x. Above the line the merge-path pass pays for the
// pass's launch: 1.01-1.05x its time from length 16 up at 2^26, about 2 µs (1.03-1.07x) at 2^24. The harness's loops
// (tps_*, thread_per_segment), doubles at 2^26: 91 / 91 / 90 / 88 / 84 % of peak at lengths 1 to 12 against 72 / 78 /
// 75 / 80 / 77 %; 90 % empty segments and the others 80 long (average 8): 52-53 % against 40-41 % (int32). Longer
// averages are unmeasured, and so are values wider than 8 bytes: the pass stays off for them (0).
// Stop 54: 4-byte values to an average of 14 (the plan's average is elements / segments, rounded down: uniform:14 and
// uniform:15 at 2^26 average 13 and 14, their last segment shorter). There the merge-path pass ran 4-byte values at
// 55-58 % of the H200's peak at 2^26, the thread mode at 78-80 % (1.35-1.45x; at 2^24 1.19-1.36x). Not 16 (lead
// 3db1994): segments of exactly 16 (64 bytes each) ran at 45 % in the thread mode (0.62-0.65x), segments of 17 (average
// 16) at 73-76 %, and the giant layout at 2^24 (average 15) 0.78-0.82x. 15 and 16 go to the group mode (below). Same
// runs, H200: results/NVIDIA_H200-segmented/short-thread-lines.txt.
constexpr long long short_pass_max_average(std::size_t value_bytes) {
  return value_bytes <= 4 ? 14 : value_bytes <= 8 ? 12 : 0;
}
inline constexpr long long short_pass_max_length = 128;
// The thread mode's rounds of one segment per thread load short_pass_unroll consecutive elements of it per step: 8 for
// 4-byte values (stop 54), so that a segment of 5 to 8 elements is one round trip, not two. Same run against 4, H200,
// 2^26 (results/NVIDIA_H200-segmented/short-thread-lines.txt, call 1): plus and maximum over int32 and float at uniform
// 5 / 6 / 8 / 12 (averages 4, 5, 8, 11) 1.007-1.019x / 1.007-1.018x / 1.008-1.015x / 1.05x for plus (maximum
// 0.997-1.006x), empty90 1.008-1.054x, every other row 0.989-1.019x; 8-byte values keep 4 (plus/double at uniform:4, 32
// bytes a segment in one step of 4, already runs at 86 %).
// Stop 55: each round loads the next round's bounds before its own elements (kernels/short_segments.cuh,
// reduce_one_segment_rounds), one round trip a segment after the first rather than two. Same run against main, H200,
// 2^26 (results/NVIDIA_H200-segmented/thread-next-bounds.txt, call 5): 4-byte values at uniform 6 / 8 / 9 / 12 / 13 / 14
// 1.06-1.07x / 1.03-1.04x / 1.04x / 1.01-1.05x / 1.00-1.05x / 1.00-1.04x (plus/int32 at 8 77.5 → 80.3 %), 8-byte
// values at 4 / 6 / 9 / 13 1.03-1.07x / 1.01-1.06x / 1.00-1.05x / 1.01-1.06x (to 74-89 %), empty90 0.97-1.11x and
// 1.05-1.22x; losses affine maps at 12 0.975x (0.956-0.961x at 2^24) and at 8 0.955-0.963x at 2^24, maximum over
// 4-byte values at 15 (average 14) 0.974-0.988x (1.03-1.05x at 2^24).
constexpr int short_pass_unroll(std::size_t value_bytes) { return value_bytes <= 4 ? 8 : 4; }
// Resident blocks of 256 threads its registers must allow (__launch_bounds__): the pass is latency bound, one or a
// few segments in flight per thread. int32 at length 1, 2^26, against the merge-path pass alone in the same call
// (511-525 µs): without a minimum ptxas gave it 47 registers (5 blocks per SM), 448 µs (calls 4-5; its loads were
// still branched around then); under 8 blocks it spilled 88 bytes, 601 µs (call 6); under 6, 40 registers and no
// spills, 356 µs (call 7). Stop 58, compiled for sm_90 with nvcc 13 (not run): today's kernel under 7 or 8 blocks
// gets 32 registers and spills 24-88 bytes, but the group mode's loop alone (reduce_group_chunks<8, 2> in a kernel
// of its own) takes 32 registers with no spill, so a group-mode kernel apart could keep 8 blocks resident where the
// whole kernel keeps 6. Stop 44 had measured what the 6 cost the group loop (short-segment-groups.txt, call 4: the
// told loop held to 6 blocks an SM by shared memory, about 5 % slower for int32 and 8-10 % for doubles), and stop 57's
// Nsight Compute has the group mode at uniform:32 short of warps with a load in flight (ncu-c3b79a6/README.md); a
// second kernel's grid, deciding and leaving where the other mode takes the launch, is what it would cost.
inline constexpr int short_pass_min_blocks = 6;

// The short pass's group mode (kernels/short_segments.cuh): from group_pass_min_average to group_pass_max_average
// elements per segment on average, a group of group_pass_lanes lanes takes each segment, reading it in steps of
// group_pass_loads consecutive elements per lane, group_pass_segments segments per group at once; a segment longer
// than group_pass_max_steps steps and than twice the average is handed back to the merge-path pass. It also needs
// segments x lanes of at least a group_pass_min_fill-th of the threads the device holds, and no one of 32 equal
// stretches of segments holding more than group_pass_max_skew times its share of the elements, for a functor that is
// not commutative (a giant among tiny ones then stays with the merge-path pass; a commutative functor's giant is handed
// back since stop 47: kernels/short_segments.cuh, group_pass_checks_spread).
// Stop 44, same runs on the H200 (scripts/harness/segmented_carries.cu; results/NVIDIA_H200-segmented/
// short-segment-groups.txt). The group loop told its shape by the host (rows groupGxUkKbB, 40 shapes, call 2), the best
// shape against the merge-path pass alone, int32 at 2^26: lengths 24, 32, 64, 128, 256, 1024, 4096 83.0 / 78.3 / 72.5 /
// 68.1 / 66.8 / 66.2 / 66.9 µs against 87.5 / 100.6 / 123.3 / 101.1 / 75.5 / 74.0 / 71.7; double 144.8 to 125.9 µs
// against 181.6 to 132.9. Four loads per lane led everywhere, two segments per group only for 4-byte values below 128
// (8-byte values at two spilled), and 8 lanes were within 3 % of the fastest shape from 32 to 256 (a template argument,
// so the kernel holds one lane count). In the library the loop runs in the short pass's kernel (40 registers for its
// thread mode: 6 resident blocks per SM) after the decision every block takes, with the lane count a template argument
// (given at run time it cost int32 1.2-1.3x, stop 44's call 4). Stop 44 set the top (calls 5 and 7) while the pass dealt the
// chunks to the thread mode's grid where that was larger (S / 1024 blocks, more than are resident from about 811 000
// segments); stop 45 deals them to one wave alone (kernels/short_segments.cuh says what that cost) and measured the top
// again, same run, the library with the top at 4096 against the top at 255 / 128 (results/NVIDIA_H200-segmented/
// short-pass-grid.txt, call 3). int32 at 2^26, averages 256 / 384 / 512 / 1024 / 2048 / 4096: 72.3 / 72.6 / 73.4 /
// 71.8 / 78.9 / 73.6 µs against 76.7 / 76.4 / 75.4 / 74.2 / 73.7 / 72.8; at 2^24, 256 to 1024: 24.5-26.0 against
// 28.3-28.6. Doubles at 2^26, 192 to 512: 133.4-134.8 against 135.9-140.9, but 1024 / 2048: 135.6 / 137.9 against
// 133.9 / 133.2; at 2^24, 192 to 1024: 38.9-41.1 against 43.1-45.1. So the group mode takes averages of 32 to 1024 for
// 4-byte values and 32 to 512 for 8-byte ones, where it led at both sizes (8-byte values from 16 since stop 53, 4-byte
// ones from 15 since stop 54: below); wider values, and every other average, stay with the merge-path pass. A
// whole-warp tier for segments past a group's steps (642fe07, reverted) gave wrong sums in one layout and cost the
// kernel registers (16-32 bytes of stack): the thread mode slower too, double at length 1 446.1 against 419.5 µs (stop
// 44's call 6).
// Stop 53: 8-byte values from an average of 16 to 31 in groups of 4 lanes (group_pass_narrow_lanes; 16 elements a
// step, so a segment of 16 keeps every lane busy, where 8 lanes left half idle). In the merge-path pass those averages
// ran at 61-75 % of the H200's peak at 2^26 (affine maps at 16: 44 %, their pieces read by 2-lane groups); stop 44's
// told shapes had 4 lanes x 4 loads as the fastest for doubles at 24 (144.8 against 181.6 µs). 13 to 15 stay with the
// merge-path pass: at 2^24 the giant layout's launch averages 15 (segments of 8 around one of half the values), where
// a group mode from 13 ran 0.60-0.67x (results/NVIDIA_H200-segmented/in-order-lists.txt, 42cc17c). Same run against
// main, H200 (results/NVIDIA_H200-segmented/narrow-groups.txt, call 4): plus, maximum, argmax and affine maps over
// 8-byte values at uniform 16 / 20 / 24 / 28, 2^26, 1.23-1.87x / 1.10-1.18x / 1.11-1.23x / 1.16-1.20x (affine maps at
// 16 43.6 → 81.5 % of peak, plus/double 61.2 → 81.6 %); at 2^24 1.10-1.82x, at 2^28 1.17-1.88x; 4-byte values (the
// same machine code) 0.988-1.020x; other 8-byte rows 0.976-1.022x, but affine maps at uniform:256 0.95-0.99x and at 48
// 1.04-1.07x (the 8-lane loop of that kernel now issues 8 loads before its first shuffle).
// Stop 54: 4-byte values from an average of 15 to 31 in groups of 4 lanes too, two segments each (stop 44 had 4 lanes
// with one segment each slower than the merge-path pass at 16: int32 120.1 against 90.8 µs). The merge-path pass runs
// 4-byte segments whose length is not a multiple of 4 slowly: 17, 18 and 31 at 53-60 % of peak at 2^26, 16, 20 and 24
// at 69-73 %. Same run against main, H200 (results/NVIDIA_H200-segmented/short-thread-lines.txt, call 3), plus and
// maximum over int32 and float at 2^26, uniform 16 / 17 / 18 / 20 / 24 / 31 (averages 16, 16, 17, 19, 23, 30):
// 1.08-1.09x / 1.27-1.34x / 1.21-1.27x / 1.04-1.08x / 1.02-1.05x / 1.30-1.33x (plus/int32 at 17 55.6 → 73.8-74.4 %); at
// 32 and 48 (8 lanes, the kernel's code moved) 1.01-1.05x; at 2^24 1.07-1.36x from 16 to 31. The giant layout at 2^24
// (average 15, segments of 8 around one of half the values) 0.96-1.01x (maximum/float 47.1 → 45.1-45.3 %); at 2^26
// 1.01-1.03x. 8-byte values, their machine code unchanged, 0.976-1.026x.
constexpr long long group_pass_min_average(std::size_t value_bytes) {
  return value_bytes <= 4 ? 15 : value_bytes <= 8 ? 16 : 0;
}
constexpr long long group_pass_max_average(std::size_t value_bytes) {
  return value_bytes <= 4 ? 1024 : value_bytes <= 8 ? 512 : 0;
}
inline constexpr int group_pass_lanes = 8;
inline constexpr int group_pass_narrow_lanes = 4;
inline constexpr long long group_pass_narrow_below = 32;
/// The group's lane count for a launch of ValueBytes-byte values averaging `average` elements per segment.
constexpr int group_pass_lanes_for(std::size_t value_bytes, long long average) {
  return value_bytes <= 8 && average < group_pass_narrow_below ? group_pass_narrow_lanes : group_pass_lanes;
}
inline constexpr int group_pass_loads = 4;
constexpr int group_pass_segments(std::size_t value_bytes, long long average) {
  return value_bytes <= 4 && average < 128 ? 2 : 1;
}
inline constexpr int group_pass_max_steps = 16;
inline constexpr long long group_pass_min_fill = 4;
inline constexpr long long group_pass_max_skew = 4;
// The most blocks per SM among which the group mode deals its chunks round robin: one wave of the pass's kernel, so
// that every block decides once. Told rows without a decision (stop 44): 16 led 6 by up to 5 % with two segments per
// group, and tied with one (call 2); one wave and 2.67 tied (call 4). The library with one wave (call 7) against 16
// blocks per SM (call 5, separate runs) had been slower at 64 at 2^26 (int32 90.0 against 82.0 µs, double 172.2
// against 141.8): with a million segments the chunks went to the thread mode's larger grid, 1024 blocks where 792 are
// resident (2112 in call 5). Dealt to one wave alone (stop 45, same run, results/NVIDIA_H200-segmented/
// short-pass-grid.txt, call 2): int32 79.2 against 90.5 µs, double 141.4 against 174.0; at 32 and 48 int32 89.2 / 86.1
// against 93.3 / 92.3, double 154.2 / 143.6 against 163.0 / 148.0.
inline constexpr int group_pass_blocks_per_sm = short_pass_min_blocks;

// reduce_by_key's one-pass kernel (kernels/reduce_runs.cuh): a block of by_key_threads threads takes a tile of
// by_key_items<K, T> keys and values per thread. Same run on the H100 at e1e917b (scripts/harness/
// reduce_by_key_one_pass.cu, 2^24 int32 keys, plus; results/NVIDIA_H100_80GB_HBM3-segmented/reduce-by-key-one-pass.txt),
// against cub::DeviceReduce::ReduceByKey. int32 values: 128 x 24 was the fastest of nine shapes at every run length
// (1, 2, 8, 32, 256, 4096, 2^20 and two random mixes): 115.8 against 137.8 µs at length 1, 84.9 against 107.1 at 8,
// 84.7 against 99.1 at 2^20; 256 x 8 was 0.94x CUB at length 1, 128 x 16 0.97x. double values: 128 x 24 within 3 %
// of the fastest (128 x 20 or 128 x 16) everywhere, 169.9 µs at length 1. Wider pairs keep about 36 KiB of tile:
// fewer items, unmeasured. Nsight Compute: 96 registers and 25.6 KiB of shared memory per block, 5 blocks per SM
// (31 % occupancy, CUB's kernel 62.5 %). Tried and left out (same file, run 3): capping the registers for 6, 8 or 10
// resident blocks (spills; 1.3-1.8x slower) and asking for the largest shared-memory carve-out (no change); stop 32: the
// keys on either side of a tile loaded with it (kernels/reduce_runs.cuh) took the kernel to 87 registers (int32 values,
// 120 for double; still 5 blocks per SM) and made it 4-8 % faster for int32 and 0-6 % for double at every run length
// (results/NVIDIA_H100_80GB_HBM3-segmented/by-key-edge-keys.txt).
inline constexpr int by_key_threads = 128;
// The resident blocks the kernel's registers must allow (its __launch_bounds__ minimum), as warps per SM, and the items
// per thread, by pair size (sizeof(KeyT) + sizeof(T)) and by whether the value is a number or a struct (a functor over
// a struct, argmax's (value, index) or affine maps, takes more registers per item); by_key_shape_for picks the first
// row that fits.
//   - Pairs up to 8 bytes (int32 keys with int32 or float values): 26 items, 20 warps (5 blocks of 128 threads), since
//     stop 46 (below); 16 warps from stop 37. At stop 37, without a minimum ptxas gave plus/float 139 registers at 26
//     items (3 blocks); with the 16-warp one every 8-byte-pair kernel ran at 127-128 registers, no spills, 4 blocks.
//     (At 24 items and no minimum they ran at 96 registers, 5 blocks, plus/float at 121, 4 blocks; a cap of 20 warps
//     spilled 92-100 bytes.)
//     26 against 24, stop 37: in the harness (its own sum functor, H100,
//     results/NVIDIA_H100_80GB_HBM3-segmented/by-key-items.txt) 26 and 28 were 1-8 % faster than 24 for int32 values at
//     most run lengths, 30 and 32 slower; in the library's compare, same run on the H100, 4bf90cf (24 items) against 26
//     items and the 4-block minimum (two rounds each, 2^24): plus/int32 1.06-1.08x at runs of 1 and 0.98-1.03x at 8 and
//     256, plus/float 1.08-1.11x at 1 and 1.03-1.05x at 8 and 256, maximum/int32 1.07x at 1 and 1.01-1.03x elsewhere,
//     maximum/float 1.06x at 1 and 1.00-1.02x elsewhere.
//   - Number values in pairs of 9 to 12 bytes (int32 keys with doubles): 26 items, 16 warps (4 blocks), since stop 46
//     (below); 12 warps (3 blocks) from stop 38. Under the 4-block bound 26 items spilled 124-152 bytes; under 3 blocks
//     ptxas gives plus/double 168 registers and maximum/double 153, no spills. Against 24 items under 4 blocks, same
//     run, 2^24, two rounds each (results/NVIDIA_H100_80GB_HBM3-segmented/ and
//     results/NVIDIA_H200-segmented/by-key-12-byte-pairs.txt): H100 1.05-1.08x at runs of 1, 1.02-1.03x at 256,
//     1.00-1.01x at 8; H200 1.11-1.14x at 1, 1.03-1.07x at 8 and 256.
//   - Struct values in pairs of 9 to 12 bytes (argmax's pairs, affine maps): what fits 36 KiB (24 items), 16 warps, as
//     before. At 26 items under 3 blocks (154 and 168 registers; affine maps spill 12 bytes) argmax was 0.93-0.95x at
//     runs of 8 and 0.98-0.99x at 256 on the H100 (0.98-0.99x at 8 on the H200), only 1.00-1.01x at 1; affine maps
//     1.03x at 1 and 0.99-1.02x elsewhere on the H100, 1.07-1.08x at 1 on the H200 (same files).
//   - Wider pairs: what fits 36 KiB (18 items for 16-byte pairs), 16 warps; unmeasured.
// Stop 46: those registers had been the guarded tile's (kernels/reduce_runs.cuh), the copy that only the first and the
// last tile run, which tested every item against n in 64 bits (126 live registers for an int32 sum where a whole tile
// peaks at 95). Testing in the tile in 32 bits and filling a partial tile so that its loops need no test, ptxas gives
// the 8-byte pairs 96 registers under a 5-block bound and plus/double 128, maximum/double 127 under 4, no spills
// (argmax's and the affine maps' structs spill 178-204 bytes under 5 blocks and stay at 4). Same run on the H200,
// b3aafd8 against it (results/NVIDIA_H200-segmented/by-key-guarded-tile.txt, `reducelab segmented compare`, two rounds
// at 2^26 and one at 2^24, runs of 1, 8, 256 and 4096): at 2^26 int32 and float values 1.03-1.07x, doubles
// 1.06-1.15x, argmax 1.00-1.01x, affine maps 0.99-1.01x (at 2^24 1.02-1.09x, 1.06-1.12x, 1.00-1.01x, 0.99-1.00x).
// Stop 35 had given every pair wider than 8 bytes the 16-warp minimum (120 registers for int32 keys and doubles before
// then, when the whole tiles lost their index tests and ptxas took plus/double to 138, one block fewer).
// scripts/check_kernel_resources.py (CTest resources.by_key_kernels) fails a build whose by-key kernels spill more than
// 16 bytes, keep fewer blocks than their bound asks, or are bound to fewer blocks than any row below.
struct by_key_shape {
  std::size_t max_pair_bytes;  // the row serves pairs up to this size (0: any size)
  bool numbers_only;           // the row serves arithmetic values only
  int items;                   // items per thread (0: what fits by_key_tile_bytes)
  int min_warps;               // resident warps per SM the registers must allow
};
inline constexpr by_key_shape by_key_shapes[] = {
    {8, false, 26, 20},
    {12, true, 26, 16},
    {0, false, 0, 16},
};
inline constexpr std::size_t by_key_tile_bytes = 36 * 1024;

/// The row for a pair. A pair of the caller's own may get another shape by an explicit specialization, e.g.
///   template <> inline constexpr reducelab::segmented::tuning::by_key_shape
///       reducelab::segmented::tuning::by_key_shape_for<int, my_value> = {0, false, 20, 16};
template <class KeyT, class T>
inline constexpr by_key_shape by_key_shape_for = [] {
  constexpr std::size_t pair = sizeof(KeyT) + sizeof(T);
  for (const by_key_shape& row : by_key_shapes) {
    const bool fits = row.max_pair_bytes == 0 || pair <= row.max_pair_bytes;
    if (fits && (!row.numbers_only || std::is_arithmetic_v<T>)) return row;
  }
  return by_key_shapes[0];  // unreachable: the table ends with a row for every pair
}();

template <class KeyT, class T>
inline constexpr int by_key_items = [] {
  constexpr by_key_shape shape = by_key_shape_for<KeyT, T>;
  if (shape.items > 0) return shape.items;
  constexpr std::size_t fit = by_key_tile_bytes / (by_key_threads * (sizeof(KeyT) + sizeof(T)));
  return fit >= 1 ? static_cast<int>(fit) : 1;
}();

/// The kernel's __launch_bounds__ minimum for blocks of `threads` threads (at least 1).
template <class KeyT, class T>
constexpr int by_key_min_blocks(int threads) {
  const int blocks = by_key_shape_for<KeyT, T>.min_warps * 32 / threads;
  return blocks >= 1 ? blocks : 1;
}

// reduce_by_key's stream path (kernels/stream_runs.cuh), for 4- and 8-byte keys and values (any functor):
// the shape of scripts/harness/by_key_stream_proxy.cu's joined_2 row (blocks of 8 warps, 4 a SM, two chunks of 128
// items loaded before any is used), which on the H200 read runs of 256 and 4096 at 81 % of peak (2^26 int32 keys and
// values; the one-pass kernel 46-49 %) and runs of one at 17 % (the one-pass kernel 65 %): hence the keys' sample
// (block/run_density.cuh) and min_mean_run. The tile (8 warps x warp_stretch items) bounds the runs a block must keep
// in its shared-memory stash before it knows their places: 368 runs a warp for 8-byte pairs (one of the two stashes,
// stash_bytes / stashes), so a warp overflows (and streams its stretch a second time) only where its runs average under
// 7 items (warp_stretch).
// As built, same run against the one-pass kernel alone (H200, 2^26, results/NVIDIA_H200-segmented/
// by-key-stream-path.txt, 291cbf5): int32 values 1.43x at runs of 256 (69.4 % of peak), 1.58x at 4096, 1.05-1.06x at
// 8 and 32; doubles 1.35x, 1.58x, 1.07-1.19x; where the sample picks the one-pass kernel (runs of 1 and 4) 0.97-0.99x.
// min_mean_run = 8 because the harness's one-kernel form was about even with the one-pass kernel at runs of 8 and
// slower below; the stream path at runs of 4-7 is not measured.
// min_n = 2^24: below it the stream path's fixed cost outweighs its gain. Where the one-pass kernel works, the stream
// path's 528 blocks wait for block 0's sample and leave: 8.8 us under Nsight Compute at 2^24 int32 runs of one (the
// one-pass kernel leaving: 3.5 us). Same run, the entry with the stream path against the one-pass kernel alone (H200,
// plus over int32 / double values, results/NVIDIA_H200-segmented/by-key-stream-threshold.txt, b9d9619): at 2^22 the
// stream path was 1.12-1.35x slower for runs of 1-32 and int32's 1.14-1.23x at 256-4096 (doubles: even at 256, 1.10x
// faster at 4096); at 2^23 1.03-1.21x slower for runs of 1-32, 1.03-1.16x faster from 256; at 2^24 7-14 % slower for
// runs of 1-4, even at 8-32, 1.12-1.26x faster at 256-4096; at 2^25-2^26 1-7 % slower for runs of 1-4, 1.06-1.61x
// faster for uniform runs from 8. The fixed cost split on the H100 (stop 63, by-key-lanes-and-dependent-launch.txt,
// 2^24, runs of one, against the one-pass kernel alone): the sample of 256 windows 3.8-4.4 us, the second kernel and
// its claimed tiles 3.0-5.5 us, the stream grid's size nothing; the 16-window sample and the programmatic launch then
// took about 3 us of it back (2.6-3.0 us, same run). Tried and not kept (stop 64, by-key-long-run-stretches.txt): the
// one-pass kernel beside the stream path claiming each tile as it starts the one before, so that its blocks' round
// trips to the one tile counter overlap their tiles' work, ran 0.84-0.86x at runs of one at 2^24 and 0.71-0.74x at
// 2^26 (1.00x at runs of 1..64).
struct by_key_stream_policy {
  static constexpr int threads = 256;
  // resident blocks per SM the registers must allow: bound to 4, int32 keys with doubles spilled 48 bytes at 64
  // registers; bound to 3 they take 80 and spill nothing, 8 bytes since the long-run tiles (stop 65; ptxas, sm_90)
  template <class KeyT, class T>
  static constexpr int min_blocks = sizeof(KeyT) + sizeof(T) <= 8 ? 4 : 3;
  // The lanes' width, picked by the keys' sample (block/run_density.cuh): consecutive items a lane takes from each
  // chunk (4 or 8), and the chunks a warp loads before using any. At short runs the stream kernel is short of issue
  // slots, not of bandwidth (Nsight Compute on the H100, stop 62: ncu-by-key-max-vs-plus-563045b.txt), and most of a
  // chunk's work with heads (its segmented warp scan, ballots and shuffles) is per chunk, not per item: 8 items a
  // lane halve it per item. Same run, 8 items in chunks of 256 against 4 in two chunks of 128 (H100, stop 63,
  // results/NVIDIA_H100_80GB_HBM3-segmented/by-key-lanes-and-dependent-launch.txt): maximum over floats 1.04-1.08x at
  // runs of 8, 32 and 1..64 (2^24 and 2^26), plus over int32 1.01-1.04x, but 0.97-1.01x at runs of 256 and 4096. So
  // runs the sample finds averaging under short_run_mean take 8 items, longer ones 4 (both shapes in one kernel: the
  // sample decides on the device). Pairs of more than 8 bytes take 8 items at every length: with both shapes compiled
  // in, int32 keys with doubles spilled 24 bytes at their 80 registers and ran 0.95-1.00x; 8 items alone ran
  // 1.01-1.03x at runs of 8-32 and 0.99-1.00x at 256-4096. At runs of 8 a warp waits on each chunk's loads right
  // after issuing them (34-38 % of the kernel's stall samples on that one wait: Nsight Compute on the H100, stop 67,
  // results/NVIDIA_H100_80GB_HBM3-segmented-n26/ncu-by-key-7958858/), but two ways of having more in flight did not
  // pay (same-run A/Bs, results/NVIDIA_H100_80GB_HBM3-segmented/): the short-run lanes loading each chunk before the
  // one before it is worked, whose second chunk of registers needs 3 blocks an SM, 0.99-1.02x for 4-byte pairs (3
  // blocks alone 0.91-0.96x) and 0.79-0.94x for 8-byte values, which spill (by-key-short-lanes-ahead.txt); an L2
  // prefetch one or two chunk groups ahead, 0.75-1.03x (by-key-l2-prefetch.txt); an L1 prefetch one group ahead,
  // which L2 sees once, 0.95-0.98x at 2^24 and from runs of 256, 0.98-1.01x at 2^26 below (by-key-l1-prefetch.txt).
  // Nor does a chunk's segmented warp scan hold runs of 8 back: leaving it early (0.98-1.01x, by-key-scan-exit.txt)
  // and testing each window by one comparison with the last lane holding a head (144-248 fewer instructions in the
  // stream kernel; 0.99-1.01x, by-key-last-head.txt, stop 70) changed nothing. Stop 70: the short-run lanes copying
  // each next chunk into a warp's stage in shared memory (cp.async, no registers held; the stash 39 KiB so that 4
  // blocks still fit), each lane its own 16-byte vectors: 0.54-0.64x wherever the stage worked, as if every sector
  // were asked of L2 twice (the copies bypass L1), 0.98-1.00x elsewhere (by-key-short-run-stage.txt). Its second
  // form (stop 71), each copy request of the warp 512 contiguous bytes: 0.95-1.01x, geometric mean 0.986. Nsight
  // Compute at runs of 8 (same file): L2 sees each sector once again, the wait on loads per issued instruction falls
  // 16 % (int32 pairs) and 42 % (doubles), but the copies through shared memory (6-9 % more instructions) and the warp
  // barriers around them cost as much, and DRAM throughput does not rise. Stop 73 (H100): 4 items a lane in two
  // coalesced chunks for short runs too ran 0.95-1.01x against these 8 (by-key-short-coalesced.txt), and what holds
  // runs of 8 under 85 % is the tiles' synchronization, not this shape, its instructions or its loads (the README's
  // by-key paragraph; read-write-mix-shape.txt, by-key-load-pattern.txt, by-key-barrier-sources.txt).
  static constexpr int items = 4;   // runs averaging short_run_mean or more
  static constexpr int chunks = 2;  // chunks of 32 x items a warp loads before using any
  static constexpr int short_run_items = 8;
  static constexpr int short_run_chunks = 1;
  static constexpr int short_run_mean = 128;
  template <class KeyT, class T>
  static constexpr bool both_widths = sizeof(KeyT) + sizeof(T) <= 8;
  static constexpr int chunk_group = chunks * 32 * items;  // items a warp loads before using any (either width)
  // The tiles' runs, before their places are known: about as much as a static allocation allows (48 KiB a block;
  // with the kernel's other shared variables 47.4-47.7 KiB, cuobjdump, sm_90). Same run against 40 KiB (H100, stop 76,
  // results/NVIDIA_H100_80GB_HBM3-segmented/by-key-46k-stash.txt): tiles 1.15x as long, 2^24 int32 keys with doubles
  // and affine maps 1.04-1.05x at runs of 8, 32 and 1..64 (4 rounds of the grid in place of 5), 1.00x at 256; every
  // other line 1.00-1.02x. Larger stashes in dynamic shared memory, as much as min_blocks resident blocks leave (54 KiB
  // for pairs of up to 8 bytes, 73 KiB for larger ones), ran 0.96-0.99x at 2^26 and 1.02-1.03x only at 2^24 for int32
  // keys with doubles (H100, stop 77, with one block barrier a tile: by-key-dynamic-stash.txt).
  static constexpr std::size_t stash_bytes = 46 * 1024;
  // Two stashes: a block's tile streams into one while its tile before waits in the other for its place, whose
  // look-backs then find the tiles before it long published (kernels/stream_runs.cuh). Same run against one stash of
  // twice the size (H100, stop 75, results/NVIDIA_H100_80GB_HBM3-segmented/by-key-deferred-placement.txt): at 2^26 and
  // runs of 8, 1.04-1.05x (int32 pairs 81.6 -> 85.1 % of peak, int32 keys with doubles 82.0 -> 86.0 %, affine maps
  // 83.2 -> 87.0 %), 1.00-1.03x at other lengths; at 2^24 0.95-1.02x, where the tiles half as long make more rounds
  // of the grid (read-write-mix-tile-wait.txt has what a tile's wait cost the reads and writes alone).
  static constexpr int stashes = 2;
  template <class KeyT, class T>
  static constexpr int stash_runs =
      static_cast<int>(stash_bytes / stashes / (threads / 32) / (sizeof(KeyT) + sizeof(T)));
  static constexpr int min_mean_run = 8;  // the sample's runs must average this many keys
  // Items a warp streams per tile: as many as its stash holds runs of 7 (a multiple of chunk_group), so that
  // runs of min_mean_run fit with room. With 4096 for every pair, doubles in runs of 8 (512 a stretch, 426 fit)
  // overflowed every warp and took 1.6x the one-pass kernel's time (H200, 2^26, stop 60). Runs of 7 rather than 6
  // (stop 68) made the tiles longer: 2^24 int32 keys took one round of the grid in place of two, 2^26 four in place
  // of five (with stop 75's two stashes of half the size, two and eight; with stop 76's 46 KiB, two and seven), so
  // each block joins, looks back and writes out fewer tiles (barrier stalls are 15-16 % of the kernel's at runs of 8:
  // Nsight Compute, results/NVIDIA_H100_80GB_HBM3-segmented-n26/ncu-by-key-7958858/). Same run against 6 (H100,
  // results/NVIDIA_H100_80GB_HBM3-segmented/by-key-stretch-x7.txt): 2^24 at runs of 8, 32 and 1..64 1.09-1.11x for
  // int32 and maximum over floats, 1.04-1.05x for doubles, 1.00-1.01x at 256 and 4096; 2^26 1.00-1.03x, but doubles
  // 0.98-0.99x. One more resident block an SM in its place (5 for 4-byte pairs) read 0.95-0.98x at 2^26 for them.
  template <class KeyT, class T>
  static constexpr long long warp_stretch = stash_runs<KeyT, T> * 7LL / chunk_group * chunk_group;
  // Items a warp may stream per tile where the sample chose the long-run lanes (runs averaging short_run_mean or
  // more), in as few full rounds of the grid as that allows (kernels::long_run_stretch, worked out by the host at
  // launch); 0 keeps warp_stretch's tiles.
  // Why longer: between tiles a block's warps load nothing while it joins them, looks back and stores its runs, and at
  // long runs the stash, which bounds warp_stretch, is far from full (a stretch of S items holds about
  // S / short_run_mean runs). Same run, stash_runs x short_run_mean / 2 against 0, behind a held stream (H100, stop 64,
  // results/NVIDIA_H100_80GB_HBM3-segmented/by-key-long-run-stretches.txt): runs of 256 and 4096 1.05-1.09x for int32
  // pairs, maximum over floats and int32 keys with doubles, at 2^24 and 2^26 (int32 at 2^26: 86.7 and 87.3 % of
  // peak); runs of 8 and 1..64 0.99-1.01x for 8-byte pairs. Int32 keys with doubles, which then worked the stretch out
  // on the device, spilled 20 bytes at their 80 registers and read 0.95-0.97x at short runs, so stop 64 kept it to
  // pairs of up to 8 bytes. Since stop 65 the host works the stretch out and passes it to the kernel: one register
  // fewer held across the tile, and int32 keys with doubles spill 8 bytes rather than 20; same harness (H100,
  // by-key-host-stretch.txt), passed against worked out by every block, 1.00-1.02x for plus over int32 and maximum
  // over floats at runs of 8, 256, 4096 and 1..64, and with it the longer tiles for every pair read 1.05-1.11x for
  // int32 keys with doubles at runs of 256 and 4096 (2^26: 82.3 -> 88.7 % of peak at 256) and 0.98-0.99x at runs of 8
  // and 1..64. So on for every pair (argmax's 12-byte pairs take 80 registers and spill nothing, ptxas sm_90).
  template <class KeyT, class T>
  static constexpr long long long_run_warp_stretch =
      stash_runs<KeyT, T> * short_run_mean / 2 / chunk_group * chunk_group;
  static constexpr long long min_n = 1LL << 24;  // below, the one-pass kernel alone (no sample, one launch)
  static_assert(chunk_group == short_run_chunks * 32 * short_run_items,
                "both widths stream the same chunk groups, so that one stretch serves both");
};

}  // namespace reducelab::segmented::tuning
