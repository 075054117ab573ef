#pragma once
// <immintrin.h> for the files compiled with -mavx512f (segment_lanes_avx512.cpp,
// lane_reader_avx512.cpp); include it in those alone, after their other headers.
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), a variable
// initialised from itself, which -W(maybe-)uninitialized reports wherever
// they are inlined: a false positive in the compiler's own header, silenced
// for the rest of the including file.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
