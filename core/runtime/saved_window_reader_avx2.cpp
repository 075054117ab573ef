// The AVX2 kernel of saved_window_reader.h. This file alone is compiled with
// -mavx2 (with the other kernels); it includes nothing but plain data and
// the declarations, so no inline function built for AVX2 reaches code that
// runs on older CPUs. saved_window_reader.cpp calls it only when the CPU
// has AVX2.

#include "keystream/runtime/saved_window_reader.h"

#include "keystream/runtime/stream_format.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

namespace ks::detail {

uint32_t read_saved_windows_avx2(const SavedWindowLanes& lanes, const uint8_t* states, size_t bytes,
                                 uint64_t state_bit, uint32_t jump_frame, LaneCursors& c, LaneArrivals& slot,
                                 uint32_t (&keys_read)[kLanesPerBlock]) {
  const auto load = [](const void* p) { return _mm256_load_si256(static_cast<const __m256i*>(p)); };
  const auto store = [](void* p, __m256i v) { _mm256_store_si256(static_cast<__m256i*>(p), v); };
  // Bit positions in 32 bits: a state's fields lie within the jump states,
  // at most 2^31 bits here (larger ones are read lane by lane).
  constexpr size_t kLargestBytes = size_t{1} << 28;
  if (bytes < 4 || bytes > kLargestBytes || state_bit >= uint64_t{kLargestBytes} * 8) return kNotRead;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i seven = _mm256_set1_epi32(7);
  const __m256i base = _mm256_set1_epi32(static_cast<int>(state_bit));
  // Every field a 32-bit load from its first byte: that byte at most
  // bytes - 4 (a field is at most 25 bits, plus its first bit's offset).
  const __m256i last_byte = _mm256_set1_epi32(static_cast<int>(bytes - 4));
  __m256i position[kSavedWindowFields], width[kSavedWindowFields], active[kSavedWindowFields];
  __m256i outside = zero;
  for (uint32_t f = 0; f < kSavedWindowFields; ++f) {
    position[f] = _mm256_add_epi32(base, load(lanes.bit_at[f]));
    width[f] = load(lanes.width[f]);
    active[f] = _mm256_cmpgt_epi32(width[f], zero);
    outside = _mm256_or_si256(
        outside, _mm256_and_si256(active[f], _mm256_cmpgt_epi32(_mm256_srli_epi32(position[f], 3), last_byte)));
  }
  if (!_mm256_testz_si256(outside, outside)) return kNotRead;
  __m256i field[kSavedWindowFields];
  const int* words = reinterpret_cast<const int*>(states);
  for (uint32_t f = 0; f < kSavedWindowFields; ++f) {
    const __m256i loaded = _mm256_mask_i32gather_epi32(zero, words, _mm256_srli_epi32(position[f], 3), active[f], 1);
    const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, width[f]), one);
    field[f] = _mm256_and_si256(_mm256_srlv_epi32(loaded, _mm256_and_si256(position[f], seven)), mask);
  }
  // Keys read, kept to kInitialKeysPerTrack..key count (0 where no window).
  const __m256i key_count = load(lanes.key_count);
  const __m256i count =
      _mm256_min_epi32(_mm256_max_epi32(field[kSavedKeysRead], _mm256_set1_epi32(kInitialKeysPerTrack)), key_count);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys_read), count);  // the caller's array need not be aligned
  const __m256i saved = _mm256_cmpgt_epi32(count, _mm256_set1_epi32(kRestoreFromRunKeys - 1));
  // The oldest key: frames are below 2^16, so a difference past the jump
  // frame (which StreamView::open refuses) comes out negative: frame 0.
  const __m256i jump = _mm256_set1_epi32(static_cast<int>(jump_frame));
  const __m256i frame = _mm256_max_epi32(_mm256_sub_epi32(jump, field[kSavedFrameDifference]), zero);
  const __m256i thirty_two = _mm256_set1_epi32(32);
  for (uint32_t i = 0; i < 4; ++i) {
    // Sign-extended from its width (0: a component not coded, read as 0).
    const __m256i unused = _mm256_sub_epi32(thirty_two, width[kSavedFirstCode + i]);
    const __m256i code = _mm256_srav_epi32(_mm256_sllv_epi32(field[kSavedFirstCode + i], unused), unused);
    _mm256_maskstore_ps(slot.code[i], saved, _mm256_cvtepi32_ps(code));
    store(c.codes[i], _mm256_blendv_epi8(load(c.codes[i]), code, saved));
  }
  const __m256i negated = field[kSavedNegated];
  _mm256_maskstore_ps(slot.frame, saved, _mm256_cvtepi32_ps(frame));
  _mm256_maskstore_ps(slot.sign, saved, _mm256_cvtepi32_ps(_mm256_sub_epi32(one, _mm256_add_epi32(negated, negated))));
  _mm256_maskstore_ps(slot.arrived, saved, _mm256_set1_ps(1.f));
  const __m256i next = _mm256_sub_epi32(count, _mm256_set1_epi32(kWindowSize - 1));
  store(c.keys_read, _mm256_blendv_epi8(load(c.keys_read), next, saved));
  store(c.keys_left, _mm256_blendv_epi8(load(c.keys_left), _mm256_sub_epi32(key_count, next), saved));
  store(c.frame, _mm256_blendv_epi8(load(c.frame), frame, saved));
  store(c.need, _mm256_andnot_si256(saved, load(c.need)));
  return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(saved)));
}

}  // namespace ks::detail
#endif
