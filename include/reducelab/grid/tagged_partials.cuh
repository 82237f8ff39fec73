// How the blocks of one launch hand their partial results to the block that finishes the reduction, without a
// fence on either side and without clearing anything before the launch.
//
// A block's partial travels in 16-byte words: {epoch, 8 bytes of the value}, as many words as the value needs.
// Each word is written with one 16-byte store and read with one 16-byte load, so a reader that sees this
// launch's epoch in a word sees that word's 8 value bytes from the same store: the tag and the bytes it vouches
// for cannot be torn apart. That makes the usual protocol (store the partial; release fence; store a flag;
// reader: load the flag; acquire fence; load the partial) unnecessary: a fence waits for the partial's store to
// be acknowledged, and the second load is another round trip to L2, which together cost about 1 µs of a 5 µs
// reduction (the H100 measurements in tuning/sm90.hpp's provenance). The guarantee relied on, that an aligned
// 16-byte access by one thread is performed as one access, is the one CUB's decoupled look-back relies on for
// its 16-byte tile descriptors (cub::ScanTileState), on every architecture CUB supports.
//
// Why an epoch rather than a cleared flag: clearing costs a memset on the stream before every launch (a second
// GPU operation, about as long as a whole small reduction). The epoch is a 64-bit value drawn per launch from a
// randomly seeded counter (detail/dispatch.cuh), so a word left by an earlier launch, or by whatever used the
// memory before, holds another epoch; a false match is a 2^-64 coincidence per word. The polls read words that
// no block of this launch has written yet, by design: compute-sanitizer's initcheck reports them as reads of
// uninitialized memory when the workspace comes fresh from the pool.
#pragma once

#include <cuda/std/cstdint>

#include <cstddef>
#include <cstring>

namespace reducelab::grid {

/// One block's slot: the value in 8-byte pieces, each next to the epoch that vouches for it.
template <class T>
struct tagged_partial {
  static constexpr int words = static_cast<int>((sizeof(T) + 7) / 8);
  struct alignas(16) word {
    unsigned long long epoch;
    unsigned long long bytes;
  };
  word w[words];
};

namespace detail {

__device__ __forceinline__ void store_word(void* at, unsigned long long epoch, unsigned long long bytes) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(at), "l"(epoch), "l"(bytes) : "memory");
}

__device__ __forceinline__ void load_word(const void* at, unsigned long long& epoch, unsigned long long& bytes) {
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(epoch), "=l"(bytes) : "l"(at) : "memory");
}

}  // namespace detail

/// Publish `value` in `slot` for this launch (one thread calls it).
template <class T>
__device__ __forceinline__ void publish(tagged_partial<T>* slot, const T& value, unsigned long long epoch) {
  constexpr int words = tagged_partial<T>::words;
  unsigned long long pieces[words] = {};
  memcpy(pieces, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i) detail::store_word(&slot->w[i], epoch, pieces[i]);
}

/// One attempt to read the value published in `slot` by this launch: true, with the value, once every word
/// carries the epoch.
template <class T>
__device__ __forceinline__ bool try_read(const tagged_partial<T>* slot, unsigned long long epoch, T& value) {
  constexpr int words = tagged_partial<T>::words;
  unsigned long long tags[words], pieces[words];
#pragma unroll
  for (int i = 0; i < words; ++i) detail::load_word(&slot->w[i], tags[i], pieces[i]);
  bool ready = true;
#pragma unroll
  for (int i = 0; i < words; ++i) ready &= tags[i] == epoch;
  if (ready) memcpy(&value, pieces, sizeof(T));
  return ready;
}

/// Fold the partials of slots [first, last) into `acc` in slot order, waiting for each to be published. Up to
/// Batch slots are read at once (independent loads, one round trip); the fold advances over the ready prefix
/// and the next batch starts at the first slot not yet published.
template <int Batch, class T, class OpT>
__device__ __forceinline__ T fold_published(T acc, const tagged_partial<T>* slots, unsigned first, unsigned last,
                                            unsigned long long epoch, OpT op) {
  unsigned next = first;
  while (next < last) {
    T values[Batch];
    bool ready[Batch];
#pragma unroll
    for (int j = 0; j < Batch; ++j) ready[j] = next + j < last && try_read(slots + next + j, epoch, values[j]);
    bool prefix = true;
#pragma unroll
    for (int j = 0; j < Batch; ++j) {
      prefix = prefix && ready[j];
      if (prefix) {
        acc = op(acc, values[j]);
        ++next;
      }
    }
  }
  return acc;
}

}  // namespace reducelab::grid
