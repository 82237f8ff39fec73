// How an all-reduce cuts a vector of n elements among P ranks: chunk q belongs to rank q, chunks as even as
// possible (the first n % P one element longer), and a chunk travels in pieces of piece_elems from its start. Every
// rank computes the same cut from (n, P, piece_elems); the symmetric kernel computes it on the device too.
#pragma once

#include <cstddef>

namespace reducelab::multigpu::detail {

struct chunking {
  std::size_t n = 0, piece_elems = 1;
  int nranks = 1;
  __host__ __device__ static std::size_t min_of(std::size_t a, std::size_t b) { return a < b ? a : b; }
  __host__ __device__ std::size_t chunk_begin(int q) const {
    const std::size_t base = n / nranks, extra = n % nranks;
    return base * q + min_of(static_cast<std::size_t>(q), extra);
  }
  __host__ __device__ std::size_t chunk_size(int q) const {
    return n / nranks + (static_cast<std::size_t>(q) < n % nranks ? 1 : 0);
  }
  /// Pieces per chunk (the longest chunk's count: shorter chunks have empty trailing pieces).
  std::size_t pieces() const { return (chunk_size(0) + piece_elems - 1) / piece_elems; }
  std::size_t piece_begin(int q, std::size_t k) const { return chunk_begin(q) + min_of(chunk_size(q), k * piece_elems); }
  std::size_t piece_size(int q, std::size_t k) const {
    const std::size_t lo = min_of(chunk_size(q), k * piece_elems);
    return min_of(chunk_size(q), lo + piece_elems) - lo;
  }
};

}  // namespace reducelab::multigpu::detail
