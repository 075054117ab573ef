#pragma once
// NeedCalendar: the player's answer to "whose key comes next in the key
// stream". The stream carries no track ids (DESIGN §7): key k of a track is
// needed at the frame of its key k - 2, and keys are written by need frame,
// then track. Every streamed window waits here under the need frame of its
// next key; the smallest need comes out first, ties by slot (slots are given
// in track order, so ties go by track as the packer writes them).
//
// Needs are small integers that mostly lie a few frames ahead, so instead of
// a heap (log n unpredictable branches per key) the calendar keeps a ring of
// the next kRingFrames frames, each a bitset of slots, and a 64-bit mask of
// which ring frames hold any: the next need is a rotate and a count of
// trailing zeros, the next slot a count of trailing zeros in its bitset.
// Needs further ahead than the ring (a long gap between two keys) wait in a
// small heap and move into the ring as it reaches them. Storage is reserved
// up front: pushing and popping allocate nothing.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace ks {

class NeedCalendar {
 public:
  static constexpr uint32_t kRingFrames = 64;  // one bit per ring frame in m_occupied
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  /// Room for slots 0 .. slot_count - 1, each waiting at most once.
  void reserve(uint32_t slot_count) {
    m_words = std::max<uint32_t>(1, (slot_count + 63) / 64);
    m_bits.assign(size_t{kRingFrames} * m_words, 0);
    m_far.reserve(slot_count);
  }
  /// Empties the calendar; no need may be earlier than `frame` from now on.
  void clear(uint32_t frame) {
    if (m_occupied != 0) std::fill(m_bits.begin(), m_bits.end(), 0);
    m_occupied = 0;
    m_far.clear();
    m_base = frame;
  }
  bool empty() const { return m_occupied == 0 && m_far.empty(); }

  /// Puts `slot` under `need`. A need before the calendar's current frame
  /// (only a corrupt stream's frames go back) counts as the current frame.
  void push(uint32_t need, uint32_t slot) {
    if (need < m_base) need = m_base;
    if (need - m_base < kRingFrames) {
      m_bits[size_t{need % kRingFrames} * m_words + slot / 64] |= uint64_t{1} << (slot % 64);
      m_occupied |= uint64_t{1} << (need % kRingFrames);
    } else {
      m_far.push_back((uint64_t{need} << 32) | slot);
      std::push_heap(m_far.begin(), m_far.end(), std::greater<>());
    }
  }

  /// The smallest need waiting, kNone when none is.
  uint32_t next_need() const {
    if (m_occupied != 0) return m_base + static_cast<uint32_t>(std::countr_zero(std::rotr(m_occupied, m_base % kRingFrames)));
    return m_far.empty() ? kNone : static_cast<uint32_t>(m_far.front() >> 32);
  }

  /// Removes and returns the slot of the smallest need (ties: the smallest
  /// slot). The calendar must not be empty.
  uint32_t pop() {
    const uint32_t need = next_need();
    move_base_to(need);
    uint64_t* bucket = &m_bits[size_t{need % kRingFrames} * m_words];
    uint32_t word = 0;
    while (bucket[word] == 0) ++word;
    const uint32_t slot = word * 64 + static_cast<uint32_t>(std::countr_zero(bucket[word]));
    bucket[word] &= bucket[word] - 1;
    if (bucket[word] == 0) {
      bool empty_bucket = true;
      for (uint32_t w = word + 1; w < m_words && empty_bucket; ++w) empty_bucket = bucket[w] == 0;
      if (empty_bucket) m_occupied &= ~(uint64_t{1} << (need % kRingFrames));
    }
    return slot;
  }

  /// Removes every slot of the smallest need (next_need(), which the
  /// calendar must have) and calls `visit(slot)` for each in slot order: the
  /// order pop() would return them in. `visit` may push slots, at needs
  /// after this one. One bucket read per need instead of one pop per slot.
  template <class Visit>
  void take_next_need(Visit&& visit) {
    const uint32_t need = next_need();
    move_base_to(need);
    m_occupied &= ~(uint64_t{1} << (need % kRingFrames));
    uint64_t* bucket = &m_bits[size_t{need % kRingFrames} * m_words];
    for (uint32_t word = 0; word < m_words; ++word) {
      uint64_t bits = bucket[word];
      bucket[word] = 0;
      for (; bits != 0; bits &= bits - 1) visit(word * 64 + static_cast<uint32_t>(std::countr_zero(bits)));
    }
  }

  size_t memory_bytes() const { return m_bits.capacity() * sizeof(uint64_t) + m_far.capacity() * sizeof(uint64_t); }

 private:
  std::vector<uint64_t> m_bits;  // kRingFrames bitsets of m_words words: ring frame f holds need f (mod kRingFrames)
  std::vector<uint64_t> m_far;   // min-heap of need << 32 | slot, needs >= m_base + kRingFrames
  // Makes `need` (the smallest need waiting) the ring's first frame, moving
  // the far needs that now fall inside the ring into it.
  void move_base_to(uint32_t need) {
    if (need == m_base) return;
    m_base = need;
    while (!m_far.empty() && (m_far.front() >> 32) - m_base < kRingFrames) {
      const uint64_t entry = m_far.front();
      std::pop_heap(m_far.begin(), m_far.end(), std::greater<>());
      m_far.pop_back();
      const uint32_t slot = static_cast<uint32_t>(entry);
      m_bits[size_t{static_cast<uint32_t>(entry >> 32) % kRingFrames} * m_words + slot / 64] |= uint64_t{1}
                                                                                             << (slot % 64);
      m_occupied |= uint64_t{1} << ((entry >> 32) % kRingFrames);
    }
  }

  uint64_t m_occupied = 0;       // bit f: ring frame f holds a slot
  uint32_t m_words = 1;
  uint32_t m_base = 0;           // every need waiting is >= m_base; the ring covers m_base .. m_base + kRingFrames - 1
};

}  // namespace ks
