// The AVX-512 form of lane_reader_avx2.cpp's seek kernel (read_lane_rounds):
// a block's eight 64-bit cursors fit one register, so each round takes one
// gather and one shift and mask per field where AVX2 takes two of each and
// a narrowing shuffle, and the due lanes are a mask register that merges
// the updates instead of AND-ing every one. Fields are narrowed two at a
// time into one register, and the four codes kept as two rows of sixteen
// (seek at auto 4-7% faster on the long clips than a field at a time).
// A key wider than one load (58 to 121 bits) takes a second gather of the
// 64 bits after the first, where the AVX2 kernel leaves it to the scalar
// reader.
// This file alone is compiled with -mavx512f -mavx512vl (and the library's
// -ffp-contract=off); everything built for AVX-512 stays in an anonymous
// namespace, and lane_reader.cpp calls it only at SimdLevel::kAvx512, for
// a seek's rounds and for the one key per lane play reads (placing cursors
// stays AVX2: once per restore).

#include <cstddef>

#include "keystream/runtime/lane_reader.h"

#if defined(__x86_64__) || defined(_M_X64)
#include "keystream/runtime/avx512_intrinsics.h"

namespace ks {

namespace {

__m256i load(const void* p) {
  return _mm256_load_si256(static_cast<const __m256i*>(p));
}
void store(void* p, __m256i v) {
  _mm256_store_si256(static_cast<__m256i*>(p), v);
}
// A row of eight 64-bit fields (LaneCursors is 64-byte aligned, and so is each row).
__m512i load_wide(const uint64_t* p) {
  return _mm512_load_si512(p);
}

// A key's bits as the kernels hold them, each lane's from its key's first
// bit: `low` the first 64, `high` the 64 after them (lanes of wide keys
// only, zero for the others and when no due lane has one).
struct KeyBits {
  __m512i low = _mm512_setzero_si512();
  __m512i high = _mm512_setzero_si512();
};

static_assert(kMaxFrameDifferenceBits + 4 * kMaxCodeDifferenceBits + 1 <= kWidestPairLoadedKeyBits,
              "every key StreamView accepts fits in two 64-bit loads from its first byte");

// Each due lane's key from `key_stream`: its next 64 bits, shifted to its
// key's first bit, and for the lanes of `wide` (due lanes whose keys are
// wider than kWidestLoadedKeyBits) the 64 bits after those. Lanes not due
// load nothing (their cursor may be at the stream's end). Wide: `wide` has
// a lane (the second gather).
template <bool Wide>
KeyBits load_key_bits(const uint8_t* key_stream, __m512i bit, __mmask8 due, __mmask8 wide) {
  const long long* base = reinterpret_cast<const long long*>(key_stream);
  const __m512i byte = _mm512_srli_epi64(bit, 3);
  const __m512i offset = _mm512_and_si512(bit, _mm512_set1_epi64(7));
  const __m512i first = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), due, byte, base, 1);
  KeyBits keys;
  keys.low = _mm512_srlv_epi64(first, offset);
  if constexpr (Wide) {
    const __m512i second = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), wide, byte, base + 1, 1);
    // A shift by 64 or more gives 0: at offset 0 the first load is the low word.
    keys.low = _mm512_or_si512(keys.low, _mm512_sllv_epi64(second, _mm512_sub_epi64(_mm512_set1_epi64(64), offset)));
    keys.high = _mm512_srlv_epi64(second, offset);
  }
  return keys;
}

static_assert(offsetof(LaneCursors, codes) % 64 == 0, "codes i and i + 1 are one 64-byte load");

// A block's lanes `lanes` in both halves of a register of two rows.
__mmask16 in_both_rows(uint32_t lanes) {
  return static_cast<__mmask16>(lanes | (lanes << kLanesPerBlock));
}

// Field f of each lane's key, as 64 bits. A wide key's field may lie in
// its low word, its high word or across both: the shifts put each word's
// part in place (a shift by 64 or more, or by a negative count, gives 0).
template <bool Wide>
__m512i key_field(const LaneCursors& c, const KeyBits& keys, uint32_t f) {
  const __m512i shift = load_wide(c.shift[f]);
  __m512i field = _mm512_srlv_epi64(keys.low, shift);
  if constexpr (Wide) {
    const __m512i word = _mm512_set1_epi64(64);
    field = _mm512_or_si512(field, _mm512_sllv_epi64(keys.high, _mm512_sub_epi64(word, shift)));
    field = _mm512_or_si512(field, _mm512_srlv_epi64(keys.high, _mm512_sub_epi64(shift, word)));
  }
  return _mm512_and_si512(field, load_wide(c.mask[f]));
}

// Fields f and g of each lane's key in one register, f's in the low eight
// 32-bit lanes and g's in the high eight: one permute, where narrowing
// each field on its own takes two moves of two uops each.
template <bool Wide>
__m512i key_field_pair(const LaneCursors& c, const KeyBits& keys, uint32_t f, uint32_t g) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  return _mm512_permutex2var_epi32(key_field<Wide>(c, keys, f), even, key_field<Wide>(c, keys, g));
}

// code_difference of sixteen fields.
__m512i code_differences(__m512i u) {
  const __m512i one = _mm512_set1_epi32(1);
  return _mm512_xor_si512(_mm512_srli_epi32(u, 1), _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_and_si512(u, one)));
}

// load_lane_layout for the lanes `open` of `c`, each at its next key
// (`keys_read`), eight lanes at a time: their segments' widths gathered, and
// the shift and mask rows stored whole (a masked store would stall the
// next round's loads of them). `key_bits`, `segment_end` and `wide` are the
// kernel's copies of those fields, updated with them. Inline, in the round
// loop: the scalar load_lane_layout there was a call that spilled the
// loop's registers, in about every other round of a block (a lane opens a
// segment every sixteenth key). Always inlined: with the two forms of the
// round loop (read_block_rounds) GCC called it, and Fox's seeks took 4%
// more time.
[[gnu::always_inline]] inline void open_segments(LaneCursors& c, __mmask8 open, __m256i keys_read,
                                                 const StreamSegment* segments, __m512i& key_bits, __m256i& segment_end,
                                                 __mmask8& wide) {
  static_assert(sizeof(StreamSegment) == 8 && offsetof(StreamSegment, widths) == 4);
  static_assert(kKeysPerSegment == 16 && kSegmentWidthBits == 5);
  const __m256i zero = _mm256_setzero_si256();
  const __m512i one = _mm512_set1_epi64(1);
  const __m256i key = _mm256_sub_epi32(keys_read, _mm256_set1_epi32(kInitialKeysPerTrack));
  const __m256i in_track = _mm256_srli_epi32(key, 4);
  const __m256i segment = _mm256_add_epi32(load(c.first_segment), in_track);
  const int* words = reinterpret_cast<const int*>(segments);
  __m256i widths = _mm256_mmask_i32gather_epi32(zero, open, segment, words + 1, 8);
  __m512i at = _mm512_setzero_si512();
  for (uint32_t f = 0; f < kKeyFields; ++f) {
    const __m512i width =
        _mm512_cvtepu32_epi64(_mm256_and_si256(widths, _mm256_set1_epi32((1 << kSegmentWidthBits) - 1)));
    widths = _mm256_srli_epi32(widths, kSegmentWidthBits);
    _mm512_store_si512(c.shift[f], _mm512_mask_mov_epi64(load_wide(c.shift[f]), open, at));
    _mm512_store_si512(c.mask[f], _mm512_mask_mov_epi64(load_wide(c.mask[f]), open,
                                                        _mm512_sub_epi64(_mm512_sllv_epi64(one, width), one)));
    at = _mm512_add_epi64(at, width);
  }
  const __m512i negation = _mm512_cvtepu32_epi64(_mm256_and_si256(widths, _mm256_set1_epi32(1)));
  _mm512_store_si512(c.shift[kKeyFields], _mm512_mask_mov_epi64(load_wide(c.shift[kKeyFields]), open, at));
  _mm512_store_si512(c.mask[kKeyFields], _mm512_mask_mov_epi64(load_wide(c.mask[kKeyFields]), open, negation));
  const __m512i opened_bits = _mm512_add_epi64(at, negation);
  key_bits = _mm512_mask_mov_epi64(key_bits, open, opened_bits);
  _mm512_store_si512(c.key_bits, key_bits);
  const __m256i next_segment_key = _mm256_add_epi32(
      _mm256_set1_epi32(kInitialKeysPerTrack), _mm256_slli_epi32(_mm256_add_epi32(in_track, _mm256_set1_epi32(1)), 4));
  segment_end = _mm256_mask_mov_epi32(segment_end, open, next_segment_key);
  store(c.segment_end, segment_end);
  wide = static_cast<__mmask8>(
      (wide & ~open) |
      _mm512_mask_cmpgt_epu64_mask(open, opened_bits, _mm512_set1_epi64(static_cast<long long>(kWidestLoadedKeyBits))));
  c.wide_lanes = wide;
}

// Stores `v` at `p` (32-byte aligned): in every lane, or (Masked) in the
// lanes of `lanes` only.
template <bool Masked>
void put(float* p, __m256 v, __mmask8 lanes) {
  if constexpr (Masked) {
    _mm256_mask_store_ps(p, lanes, v);
  } else {
    _mm256_store_ps(p, v);
  }
}
template <bool Masked>
void put(float* p, __m512 v, __mmask16 lanes) {
  if constexpr (Masked) {
    _mm512_mask_storeu_ps(p, lanes, v);
  } else {
    _mm512_storeu_ps(p, v);
  }
}

// The due lanes' `keys` (load_key_bits) into `a` and their cursors: read_keys
// once the keys are loaded.
template <bool Masked, bool Wide>
uint32_t take_keys(LaneArrivals& a, LaneCursors& c, uint32_t due_bits, const KeyBits& keys, __m512i bit,
                   __m512i key_bits) {
  const __mmask8 due = static_cast<__mmask8>(due_bits);
  const __mmask16 due_rows = in_both_rows(due_bits);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m512i frame_and_negated = key_field_pair<Wide>(c, keys, 0, kKeyFields);
  const __m256i frame_old = load(c.frame);
  const __m256i frame_new =
      _mm256_add_epi32(frame_old, _mm256_add_epi32(_mm512_castsi512_si256(frame_and_negated), load(c.frame_delta_min)));
  store(c.frame, _mm256_mask_mov_epi32(frame_old, due, frame_new));
  store(c.need, _mm256_mask_mov_epi32(load(c.need), due, frame_old));
  put<Masked>(a.frame, _mm256_cvtepi32_ps(frame_new), due);
  for (uint32_t i = 0; i < 4; i += 2) {
    int32_t* rows = c.codes[i];  // codes i and i + 1, 64-byte aligned
    const __m512i old = _mm512_load_si512(rows);
    const __m512i codes =
        _mm512_mask_add_epi32(old, due_rows, old, code_differences(key_field_pair<Wide>(c, keys, i + 1, i + 2)));
    _mm512_store_si512(rows, codes);
    put<Masked>(a.code[i], _mm512_cvtepi32_ps(codes), due_rows);
  }
  const __m256i negated = _mm512_extracti64x4_epi64(frame_and_negated, 1);
  put<Masked>(a.sign, _mm256_cvtepi32_ps(_mm256_sub_epi32(one, _mm256_add_epi32(negated, negated))), due);
  put<Masked>(a.arrived, _mm256_maskz_mov_ps(due, _mm256_set1_ps(1.f)), due);
  a.any = a.any || due_bits != 0;
  // The due lanes' cursors move past their key.
  _mm512_store_si512(c.bit, _mm512_mask_add_epi64(bit, due, bit, key_bits));
  const __m256i left = _mm256_mask_sub_epi32(load(c.keys_left), due, load(c.keys_left), one);
  store(c.keys_left, left);
  const __m256i read = _mm256_mask_add_epi32(load(c.keys_read), due, load(c.keys_read), one);
  store(c.keys_read, read);
  // Lanes whose next key opens a segment (one key in sixteen). The caller
  // loads their layouts (load_lane_layouts): loading them here, as
  // read_rounds does, cost play at the clip's rate half as much time again
  // when play called this a block at a time (cgspeed 330 -> 490 ns), for
  // reasons not found.
  return _mm256_mask_cmpeq_epi32_mask(due, read, load(c.segment_end)) & _mm256_cmpneq_epi32_mask(left, zero);
}

// The lanes of `due` whose keys (`key_bits` long) are wider than one 64-bit
// load takes (kWidestLoadedKeyBits): they need a second.
__mmask8 wide_keys(__mmask8 due, __m512i key_bits) {
  return _mm512_mask_cmpgt_epu64_mask(due, key_bits, _mm512_set1_epi64(static_cast<long long>(kWidestLoadedKeyBits)));
}

// The lanes of `lanes` whose key at `bit` lies inside the `bytes` of the
// key stream: one 64-bit load from its first byte, or two for a lane of `wide`.
__mmask8 keys_inside(__mmask8 lanes, __mmask8 wide, __m512i bit, size_t bytes) {
  const __m512i byte = _mm512_srli_epi64(bit, 3);
  const long long size = static_cast<long long>(bytes);
  return static_cast<__mmask8>(lanes & ~_mm512_mask_cmpgt_epi64_mask(lanes, byte, _mm512_set1_epi64(size - 8)) &
                               ~_mm512_mask_cmpgt_epi64_mask(wide, byte, _mm512_set1_epi64(size - 16)));
}

// lane_reader_avx2.cpp's read_keys: one key of the due lanes into `a`, a
// block's arrivals (every lane written, those not due marked not arrived)
// or a ring slot (Masked: due lanes only). Codes go two rows (two
// components' eight lanes, side by side in LaneCursors and LaneArrivals)
// per instruction. A key wider than one 64-bit load takes a second
// (robot's play at the clip's rate read 17% of its blocks lane by lane
// before, for keys of 58 bits or more).
template <bool Masked>
uint32_t read_keys(LaneArrivals& a, LaneCursors& c, uint32_t due_bits, const uint8_t* key_stream, size_t bytes) {
  const __mmask8 due = static_cast<__mmask8>(due_bits);
  const __m512i bit = load_wide(c.bit);
  const __m512i key_bits = load_wide(c.key_bits);
  // Every due lane's key inside the stream, and none wider than two loads
  // hold (StreamView refuses such keys: this keeps the kernel's reads the
  // scalar reader's whatever the cursors hold).
  const __mmask8 wide = wide_keys(due, key_bits);
  if (wide != 0) [[unlikely]] {
    const __m512i widest = _mm512_set1_epi64(static_cast<long long>(kWidestPairLoadedKeyBits));
    if (keys_inside(due, wide, bit, bytes) != due || _mm512_mask_cmpgt_epu64_mask(wide, key_bits, widest) != 0) {
      return detail::kNotRead;
    }
    return take_keys<Masked, true>(a, c, due_bits, load_key_bits<true>(key_stream, bit, due, wide), bit, key_bits);
  }
  if (keys_inside(due, 0, bit, bytes) != due) return detail::kNotRead;
  return take_keys<Masked, false>(a, c, due_bits, load_key_bits<false>(key_stream, bit, due, 0), bit, key_bits);
}

// read_play_step: read_keys for every block with a lane due, the loop,
// the due masks, the count and the latest need kept in registers. Layouts
// of segments opened are left to the caller: loading them here
// (open_segments after the read) made no difference.
PlayStep play_step(SegmentLanes* blocks, LaneCursors* cursors, size_t count, uint32_t frame, const uint8_t* key_stream,
                   size_t bytes, PlayStepBlock* events) {
  PlayStep out;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i now = _mm256_set1_epi32(static_cast<int>(frame));
  __m256i latest = zero;
  __m256i earliest = _mm256_set1_epi32(INT32_MAX);  // needs of lanes with keys left after the step
  for (uint32_t b = 0; b < count; ++b) {
    LaneCursors& c = cursors[b];
    const __m256i left = load(c.keys_left);
    const __m256i need = load(c.need);
    const __mmask8 has_keys = _mm256_cmpgt_epi32_mask(left, zero);
    const __mmask8 due = _mm256_mask_cmple_epi32_mask(has_keys, need, now);
    if (due == 0) {
      earliest = _mm256_mask_min_epi32(earliest, has_keys, earliest, need);
      continue;
    }
    const uint32_t finished_before = _mm256_cmpeq_epi32_mask(left, zero);
    SegmentLanes& lanes = blocks[b];
    // The frame of each lane's newest key: the need of its next once the due one is read.
    const __m256i newest = load(c.frame);
    const uint32_t opened =
        lanes.arrivals.any ? detail::kNotRead : read_keys<false>(lanes.arrivals, c, due, key_stream, bytes);
    if (opened == detail::kNotRead) {
      events[out.events++] = {b, due, 0, 0, finished_before};
      continue;
    }
    lanes.stale = true;
    latest = _mm256_mask_max_epi32(latest, due, latest, need);
    out.keys += count_lanes(due);
    const uint32_t more = _mm256_mask_cmple_epi32_mask(_mm256_mask_cmpgt_epi32_mask(due, left, one), newest, now);
    const __mmask8 finished = _mm256_mask_cmpeq_epi32_mask(due, left, one);
    earliest =
        _mm256_mask_min_epi32(earliest, has_keys & ~finished, earliest, _mm256_mask_mov_epi32(need, due, newest));
    if ((opened | more | finished) != 0) events[out.events++] = {b, 0, opened, more, finished_before};
  }
  __m128i low = _mm_min_epi32(_mm256_castsi256_si128(earliest), _mm256_extracti128_si256(earliest, 1));
  low = _mm_min_epi32(low, _mm_shuffle_epi32(low, _MM_SHUFFLE(1, 0, 3, 2)));
  low = _mm_min_epi32(low, _mm_shuffle_epi32(low, _MM_SHUFFLE(2, 3, 0, 1)));
  const int32_t next_due = _mm_cvtsi128_si32(low);
  out.next_due = next_due == INT32_MAX ? UINT32_MAX : static_cast<uint32_t>(next_due);
  // Needs are frames (>= 0): the signed maximum of the eight.
  __m128i half = _mm_max_epi32(_mm256_castsi256_si128(latest), _mm256_extracti128_si256(latest, 1));
  half = _mm_max_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(1, 0, 3, 2)));
  half = _mm_max_epi32(half, _mm_shuffle_epi32(half, _MM_SHUFFLE(2, 3, 0, 1)));
  out.latest_need = static_cast<uint32_t>(_mm_cvtsi128_si32(half));
  return out;
}

// read_rounds, for a block whose lanes with keys left have wide keys (Wide)
// or none: a wide key takes a second gather and more shifts per field, which
// the other blocks (most) do without. A lane that opens a segment of wide
// keys stops the rounds Wide = false reads before its round (the caller
// reads it, and the next call reads on with Wide).
template <bool Wide>
detail::RoundsRead read_block_rounds(KeyRing& ring, LaneCursors& c, uint32_t round,
                                     const uint32_t (&forced)[kKeysPerLane], int64_t frame, const uint8_t* key_stream,
                                     size_t bytes, std::span<const StreamSegment> segments) {
  detail::RoundsRead out;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  // No lane is due by its need before frame 0 (needs are frames, >= 0).
  const __m256i now = _mm256_set1_epi32(frame < 0 ? -1 : static_cast<int>(frame));
  __m256i segment_end = load(c.segment_end);
  const __m256i frame_delta_min = load(c.frame_delta_min);
  __m512i key_bits = load_wide(c.key_bits);
  // Lanes of keys wider than one load (a second gather for those) and, from
  // the cursors of a forged stream StreamView would refuse, wider than two.
  // Without Wide, a due lane of wide keys stops the rounds like one of
  // those.
  const __m512i widest = _mm512_set1_epi64(static_cast<long long>(kWidestPairLoadedKeyBits));
  __mmask8 wide = wide_keys(0xFF, key_bits);
  const auto beyond_of = [&] { return Wide ? _mm512_cmpgt_epu64_mask(key_bits, widest) : wide; };
  __mmask8 beyond = beyond_of();
  __m512i bit = load_wide(c.bit);
  __m256i frames = load(c.frame);
  __m256i need = load(c.need);
  __m256i left = load(c.keys_left);
  __m256i keys_read = load(c.keys_read);
  // Codes 0 and 1, and 2 and 3, sixteen lanes per register, as read_keys keeps them.
  __m512i code_rows[2] = {_mm512_load_si512(c.codes[0]), _mm512_load_si512(c.codes[2])};
  // As the AVX2 kernel: only a call whose lanes may reach the stream's end
  // with the keys they have left (each shorter than 128 bits, and loaded
  // 16 bytes at most) checks loads.
  const __m512i lanes_left = _mm512_cvtepi32_epi64(_mm256_max_epi32(left, zero));
  const __m512i reach = _mm512_add_epi64(bit, _mm512_slli_epi64(lanes_left, 7));
  const __m512i last_byte = _mm512_set1_epi64(static_cast<long long>(bytes) - (Wide ? 16 : 8));
  const bool check_loads = _mm512_cmpgt_epi64_mask(_mm512_srli_epi64(reach, 3), last_byte) != 0;
  // Signs: set once, and none extracted, for a block without negated keys.
  const auto any_negation = [&] {
    const __m512i negation = load_wide(c.mask[kKeyFields]);
    return c.negation_lanes != 0 || _mm512_test_epi64_mask(negation, negation) != 0;
  };
  bool negations = any_negation();
  if (!negations) {
    for (LaneArrivals& slot : ring.slot) _mm256_store_ps(slot.sign, _mm256_set1_ps(1.f));
  }
  // Round r's due lanes, from the needs and keys left as they are.
  const auto due_at = [&](uint32_t r) {
    const __mmask8 again = static_cast<__mmask8>(r < kKeysPerLane ? forced[r] : 0u);
    return static_cast<__mmask8>(again | _mm256_mask_cmple_epi32_mask(_mm256_cmpgt_epi32_mask(left, zero), need, now));
  };
  // Lanes of `lanes` whose key at `at` lies in its loads inside the stream.
  const auto inside = [&](__mmask8 lanes, __m512i at) -> __mmask8 {
    if (!check_loads) return lanes;
    if constexpr (Wide) return keys_inside(lanes, static_cast<__mmask8>(lanes & wide), at, bytes);
    return static_cast<__mmask8>(lanes & ~_mm512_mask_cmpgt_epi64_mask(lanes, _mm512_srli_epi64(at, 3), last_byte));
  };
  // The keys of `lanes` at `at`, and (`wide_fetched`) the lanes whose second
  // words are in them.
  const auto fetch = [&](__m512i at, __mmask8 lanes, __mmask8& wide_fetched) {
    wide_fetched = Wide ? static_cast<__mmask8>(lanes & wide) : 0;
    return Wide && wide_fetched != 0 ? load_key_bits<true>(key_stream, at, lanes, wide_fetched)
                                     : load_key_bits<false>(key_stream, at, lanes, 0);
  };
  // A round's fields f and g (key_field_pair): with the second words'
  // shifts only in a round where a due lane's keys are wide (robot's seeks
  // took 7% more time with them in every round of its blocks).
  bool wide_round = false;
  const auto field_pair = [&](const KeyBits& keys, uint32_t f, uint32_t g) {
    return Wide && wide_round ? key_field_pair<true>(c, keys, f, g) : key_field_pair<false>(c, keys, f, g);
  };
  // Each round gathers the next round's keys before it decodes its own: a
  // round's due lanes depend on the frames of the keys the round before
  // read, so waiting for them to gather its keys put a gather's latency
  // in every round. Lanes due in a round are all due in the round before
  // (a lane that is not due reads nothing, so it stays not due; forced
  // lanes only leave), so the next round's keys are those of this round's
  // lanes with keys left. `fetched`: the lanes whose key at `bit` is in
  // `keys`, and `fetched_wide` those whose second words are.
  __mmask8 due = due_at(round);
  __mmask8 fetched = 0;
  __mmask8 fetched_wide = 0;
  KeyBits keys;
  for (;; ++round) {
    if (due == 0) {
      out.done = true;
      break;
    }
    // A due lane of keys wider than this form reads (one load without Wide;
    // with it two, which only a forged stream's cursors exceed): the caller
    // reads this round its own way, as it does a round whose loads would
    // pass the end of the stream (`inside`).
    if ((due & beyond) != 0) break;
    wide_round = (due & wide) != 0;
    // Fetched a round ahead without a second word: a lane whose segment
    // opened on wide keys since.
    if ((due & ~fetched) != 0 || (Wide && (due & wide & ~fetched_wide) != 0)) {
      if (inside(due, bit) != due) break;
      keys = fetch(bit, due, fetched_wide);
    }
    const __m512i next_bit = _mm512_mask_add_epi64(bit, due, bit, key_bits);
    left = _mm256_mask_sub_epi32(left, due, left, one);
    const __mmask8 next_fetched = inside(_mm256_mask_cmpgt_epi32_mask(due, left, zero), next_bit);
    __mmask8 next_fetched_wide = 0;
    const KeyBits next_keys = fetch(next_bit, next_fetched, next_fetched_wide);
    const __mmask16 due_rows = in_both_rows(due);
    LaneArrivals& slot = ring.slot[round % kKeysPerLane];
    const __m512i frame_and_negated = field_pair(keys, 0, kKeyFields);
    const __m256i frame_new = _mm256_mask_add_epi32(
        frames, due, frames, _mm256_add_epi32(_mm512_castsi512_si256(frame_and_negated), frame_delta_min));
    need = _mm256_mask_mov_epi32(need, due, frames);
    frames = frame_new;
    _mm256_mask_store_ps(slot.frame, due, _mm256_cvtepi32_ps(frame_new));
    for (uint32_t r = 0; r < 2; ++r) {
      code_rows[r] = _mm512_mask_add_epi32(code_rows[r], due_rows, code_rows[r],
                                           code_differences(field_pair(keys, 2 * r + 1, 2 * r + 2)));
      _mm512_mask_storeu_ps(slot.code[2 * r], due_rows, _mm512_cvtepi32_ps(code_rows[r]));
    }
    if (negations) {
      const __m256i negated = _mm512_extracti64x4_epi64(frame_and_negated, 1);
      _mm256_mask_store_ps(slot.sign, due,
                           _mm256_cvtepi32_ps(_mm256_sub_epi32(one, _mm256_add_epi32(negated, negated))));
    }
    // A ring slot's arrived and any are not read (refill_windows takes each
    // lane's count of keys read).
    bit = next_bit;
    keys_read = _mm256_mask_add_epi32(keys_read, due, keys_read, one);
    out.read |= due;
    // Lanes whose next key opens a segment take its layout here (the key
    // fetched for it is decoded with the new layout, fetched again when
    // its keys are now wide).
    const __mmask8 opening =
        _mm256_mask_cmpeq_epi32_mask(due, keys_read, segment_end) & _mm256_cmpneq_epi32_mask(left, zero);
    if (opening != 0) {
      open_segments(c, opening, keys_read, segments.data(), key_bits, segment_end, wide);
      beyond = beyond_of();
      // A forged stream may give a track's segments different negation
      // bits; the signs set at the start stand for the keys before.
      negations = negations || any_negation();
    }
    keys = next_keys;
    fetched = next_fetched;
    fetched_wide = next_fetched_wide;
    due = due_at(round + 1);
  }
  out.round = round;
  _mm512_store_si512(c.bit, bit);
  store(c.frame, frames);
  store(c.need, need);
  store(c.keys_left, left);
  store(c.keys_read, keys_read);
  _mm512_store_si512(c.codes[0], code_rows[0]);
  _mm512_store_si512(c.codes[2], code_rows[1]);
  return out;
}

detail::RoundsRead read_rounds(KeyRing& ring, LaneCursors& c, uint32_t round, const uint32_t (&forced)[kKeysPerLane],
                               int64_t frame, const uint8_t* key_stream, size_t bytes,
                               std::span<const StreamSegment> segments) {
  const __mmask8 has_keys = _mm256_cmpgt_epi32_mask(load(c.keys_left), _mm256_setzero_si256());
  if (wide_keys(has_keys, load_wide(c.key_bits)) != 0) {
    return read_block_rounds<true>(ring, c, round, forced, frame, key_stream, bytes, segments);
  }
  return read_block_rounds<false>(ring, c, round, forced, frame, key_stream, bytes, segments);
}

}  // namespace

namespace detail {

uint32_t read_lane_keys_avx512(SegmentLanes& block, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                               size_t bytes) {
  return read_keys<false>(block.arrivals, c, due, key_stream, bytes);
}
uint32_t read_lane_keys_avx512(LaneArrivals& slot, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                               size_t bytes) {
  return read_keys<true>(slot, c, due, key_stream, bytes);
}
PlayStep read_play_step_avx512(SegmentLanes* blocks, LaneCursors* cursors, size_t count, uint32_t frame,
                               const uint8_t* key_stream, size_t bytes, PlayStepBlock* events) {
  return play_step(blocks, cursors, count, frame, key_stream, bytes, events);
}
RoundsRead read_lane_rounds_avx512(KeyRing& ring, LaneCursors& c, uint32_t round,
                                   const uint32_t (&forced)[kKeysPerLane], int64_t frame, const uint8_t* key_stream,
                                   size_t bytes, std::span<const StreamSegment> segments) {
  return read_rounds(ring, c, round, forced, frame, key_stream, bytes, segments);
}

}  // namespace detail

}  // namespace ks
#endif
