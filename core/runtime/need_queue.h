#pragma once
// NeedQueue: which track's key comes next in the key stream. The stream
// carries no track ids (DESIGN §7): key k of a track is needed at the frame
// of its key k - 2, and keys are written by need frame, then track. The
// player and the stream's validator both keep every streamed track with
// keys left in this queue, keyed by the need frame of its next key, and
// read the key of the track on top. Storage is reserved up front, so
// pushing and popping allocate nothing.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace ks {

class NeedQueue {
 public:
  /// Room for `slots` entries (one per streamed track).
  void reserve(size_t slots) { m_heap.reserve(slots); }
  void clear() { m_heap.clear(); }
  bool empty() const { return m_heap.empty(); }
  /// Adds `slot` (a track, or its index among the streamed tracks: either
  /// orders ties as track order does) with its next key needed at `need`.
  void push(uint32_t need, uint32_t slot) {
    m_heap.push_back((uint64_t{need} << 32) | slot);
    std::push_heap(m_heap.begin(), m_heap.end(), std::greater<>());
  }
  /// Need frame of the next key: the smallest need, ties to the smallest slot.
  uint32_t top_need() const { return static_cast<uint32_t>(m_heap.front() >> 32); }
  uint32_t top_slot() const { return static_cast<uint32_t>(m_heap.front()); }
  void pop() {
    std::pop_heap(m_heap.begin(), m_heap.end(), std::greater<>());
    m_heap.pop_back();
  }

 private:
  std::vector<uint64_t> m_heap;  // min-heap of need << 32 | slot
};

}  // namespace ks
