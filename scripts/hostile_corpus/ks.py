""".ks streams for the hostile corpus, cut and patched from valid streams
that keystream made: cut at every section boundary (with and without a
consistent total size), header fields set to zero, maximum and NaN, bits
flipped in every section, metadata names with escape sequences, 65,535 bytes
or invalid UTF-8, and zstd key streams claiming 256 MiB or 4 GiB. Checksum gives
each mutated stream a valid checksum through libxxhash, so the checks behind
the checksum run too, which the fuzzers' corpus cannot reach.
"""

import ctypes
import ctypes.util
import random
import struct

from .common import special_paths

H_VERSION, H_FLAGS, H_RATE, H_FRAMES, H_BONES, H_JUMP = 4, 6, 8, 12, 16, 20
H_INITIAL, H_KEYSTREAM, H_JUMPINDEX, H_JUMPSTATES, H_META, H_TOTAL = 24, 28, 32, 36, 40, 44
H_KSBITS, H_KSKEYS, H_CHECKSUM, H_WIDTHS = 48, 52, 56, 60
HEADER = 64


class Checksum:
    """stream_checksum (core/runtime/checksum.h) through libxxhash."""

    def __init__(self):
        name = ctypes.util.find_library("xxhash") or "libxxhash.so.0"
        self.lib = ctypes.CDLL(name)
        self.lib.XXH3_64bits.restype = ctypes.c_uint64
        self.lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        self.lib.XXH3_64bits_withSeed.restype = ctypes.c_uint64
        self.lib.XXH3_64bits_withSeed.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]

    def fix(self, stream):
        b = bytearray(stream)
        if len(b) < HEADER:
            return bytes(b)
        header = bytearray(b[:HEADER])
        header[H_CHECKSUM:H_CHECKSUM + 4] = b"\0\0\0\0"
        seed = self.lib.XXH3_64bits(bytes(header), HEADER)
        body = bytes(b[HEADER:])
        struct.pack_into("<I", b, H_CHECKSUM, self.lib.XXH3_64bits_withSeed(body, len(body), seed) & 0xFFFFFFFF)
        return bytes(b)


def u32(b, off):
    return struct.unpack_from("<I", b, off)[0]


def sections(stream):
    """(name, start, end) of every section, from the header."""
    bounds = [("header", 0), ("tables", HEADER), ("key widths", u32(stream, H_WIDTHS)),
              ("initial keys", u32(stream, H_INITIAL)), ("key stream", u32(stream, H_KEYSTREAM)),
              ("jump index", u32(stream, H_JUMPINDEX)), ("jump states", u32(stream, H_JUMPSTATES)),
              ("metadata", u32(stream, H_META))]
    ends = [b for _, b in bounds[1:]] + [u32(stream, H_TOTAL)]
    return [(name, start, end) for (name, start), end in zip(bounds, ends)]


def parse_metadata(stream):
    m = u32(stream, H_META)
    names_count = u32(stream, m)
    fixed = stream[m:m + 29]
    overrides = u32(stream, m + 25)
    pos = m + 29
    strings = []
    for _ in range(2 + names_count):
        n = struct.unpack_from("<H", stream, pos)[0]
        strings.append(stream[pos + 2:pos + 2 + n])
        pos += 2 + n
    return fixed, strings, stream[pos:pos + 10 * overrides]


def with_metadata(stream, metadata, cs):
    m = u32(stream, H_META)
    b = bytearray(stream[:m] + metadata)
    struct.pack_into("<I", b, H_TOTAL, len(b))
    return cs.fix(b)


def strings_blob(strings):
    return b"".join(struct.pack("<H", len(s)) + s for s in strings)


def with_key_stream(stream, section, cs):
    """`stream` with its key stream section replaced, later offsets moved."""
    s = dict((n, (a, e)) for n, a, e in sections(stream))
    a, e = s["key stream"]
    b = bytearray(stream[:a] + section + stream[e:])
    shift = len(section) - (e - a)
    for off in (H_JUMPINDEX, H_JUMPSTATES, H_META, H_TOTAL):
        struct.pack_into("<I", b, off, u32(b, off) + shift)
    return cs.fix(b)


def zstd_rle_frame(content_size, block_bytes, last_block_size=None):
    """A zstd frame declaring `content_size` bytes, of RLE blocks (3-byte
    header + 1 byte each) covering `block_bytes` bytes: a few kilobytes that
    really expand to the size they claim."""
    out = bytearray(struct.pack("<IB", 0xFD2FB528, 0xA0) + struct.pack("<I", content_size))
    left = block_bytes
    while left > 0:
        n = min(left, 128 << 10)
        left -= n
        out += (((n << 3) | (1 << 1) | (1 if left == 0 else 0)).to_bytes(3, "little")) + b"\x55"
    return bytes(out)


def ks_corpus(c, cs, small, demo, zstd1, zstdn):
    special_paths(c, "ks")
    rng = random.Random(16)
    c.add("ks", "valid_small", small)
    c.add("ks", "valid_zstd_blocks", zstdn)

    def fixed(b):
        return cs.fix(b)

    def header_patch(base, off, fmt, value):
        b = bytearray(base)
        struct.pack_into(fmt, b, off, value)
        return fixed(b)

    for base_name, base in (("small", small), ("zstd", zstdn)):
        cuts = {0, 4, 8, 63}
        for _, start, end in sections(base):
            cuts |= {start, (start + end) // 2}
        cuts.add(len(base) - 1)
        for cut in sorted(x for x in cuts if x < len(base)):
            c.add("ks", f"{base_name}_cut_{cut}", base[:cut], note=f"cut at byte {cut} of {len(base)}")
        for name, start, _ in sections(base)[2:]:
            b = bytearray(base[:start])
            struct.pack_into("<I", b, H_TOTAL, start)
            c.add("ks", f"{base_name}_consistent_cut_{name.replace(' ', '_')}", fixed(b),
                  note=f"cut at the {name} with total size and checksum matching")
    b = bytearray(small)
    b[len(b) // 2] ^= 0x40
    c.add("ks", "bad_checksum_body", bytes(b))
    c.add("ks", "bad_checksum_field", small[:H_CHECKSUM] + struct.pack("<I", u32(small, H_CHECKSUM) ^ 1)
          + small[H_CHECKSUM + 4:])
    for v in (0, 1, 2, 3, 4, 6, 0xFFFF):
        c.add("ks", f"version_{v}", header_patch(small, H_VERSION, "<H", v))
    c.add("ks", "bad_magic", header_patch(small, 0, "<I", 0x52545341))
    c.add("ks", "flags_all", header_patch(small, H_FLAGS, "<H", 0xFFFF))
    c.add("ks", "flags_zstd_on_plain", header_patch(small, H_FLAGS, "<H", 2))
    for name, off, fmt, v in (("rate_nan", H_RATE, "<f", float("nan")), ("rate_inf", H_RATE, "<f", float("inf")),
                              ("rate_zero", H_RATE, "<f", 0.0), ("rate_negative", H_RATE, "<f", -30.0),
                              ("rate_1e-38", H_RATE, "<f", 1e-38), ("rate_3e38", H_RATE, "<f", 3e38),
                              ("frames_0", H_FRAMES, "<I", 0), ("frames_1", H_FRAMES, "<I", 1),
                              ("frames_65536", H_FRAMES, "<I", 65536), ("frames_max", H_FRAMES, "<I", 0xFFFFFFFF),
                              ("bones_0", H_BONES, "<I", 0), ("bones_65535", H_BONES, "<I", 0xFFFF),
                              ("bones_max", H_BONES, "<I", 0xFFFFFFFF), ("jump_1", H_JUMP, "<I", 1),
                              ("jump_max", H_JUMP, "<I", 0xFFFFFFFF),
                              ("total_max", H_TOTAL, "<I", 0xFFFFFFFF), ("ksbits_max", H_KSBITS, "<I", 0xFFFFFFFF),
                              ("kskeys_max", H_KSKEYS, "<I", 0xFFFFFFFF), ("kskeys_zero", H_KSKEYS, "<I", 0),
                              ("widths_max", H_WIDTHS, "<I", 0xFFFFFFFF), ("widths_zero", H_WIDTHS, "<I", 0),
                              ("initial_before_widths", H_INITIAL, "<I", HEADER),
                              ("keystream_past_end", H_KEYSTREAM, "<I", len(small) + 8),
                              ("jumpindex_odd", H_JUMPINDEX, "<I", u32(small, H_JUMPINDEX) + 1),
                              ("metadata_max", H_META, "<I", 0xFFFFFFFF),
                              ("metadata_at_header", H_META, "<I", 0)):
        c.add("ks", f"header_{name}", header_patch(small, off, fmt, v))
    # A byte flipped here and there in each section, the checksum made right so the checks behind it run.
    for name, start, end in sections(demo)[1:]:
        if end <= start:
            continue
        for k in range(2):
            b = bytearray(demo)
            for _ in range(3):
                b[rng.randrange(start, end)] ^= 1 << rng.randrange(8)
            c.add("ks", f"flip_{name.replace(' ', '_')}_{k}", fixed(b), note=f"bits flipped in the {name}")
    # Metadata: names, counts and overrides.
    fixed_part, strings, overrides = parse_metadata(demo)
    bones = len(strings) - 2
    esc = [b"\x1b]0;pwned\x07", b"\x1b[2J\x1b[31m", b"\x9b31m", b"bell\x07\x08\x08"]
    named = strings[:2] + [esc[i % len(esc)] + s for i, s in enumerate(strings[2:])]
    c.add("ks", "escape_names", with_metadata(demo, fixed_part + strings_blob(named) + overrides, cs),
          note="bone names with terminal escape sequences")
    c.add("ks", "escape_clip_name", with_metadata(demo, fixed_part + strings_blob(
        [b"\x1b[2Jclip\x1b]2;title\x07", b"\x1b[1;1H"] + strings[2:]) + overrides, cs))
    c.add("ks", "names_65535", with_metadata(demo, fixed_part + strings_blob(
        [b"C" * 0xFFFF, b"S" * 0xFFFF] + [b"B" * 0xFFFF] * bones) + overrides, cs))
    c.add("ks", "names_invalid_utf8", with_metadata(demo, fixed_part + strings_blob(
        [b"\xff\xfe", b"\xc0\x80"] + [b"\xed\xa0\x80"] * bones) + overrides, cs))
    c.add("ks", "names_duplicate", with_metadata(demo, fixed_part + strings_blob(
        strings[:2] + [b"same"] * bones) + overrides, cs))
    c.add("ks", "names_empty", with_metadata(demo, fixed_part + strings_blob(strings[:2] + [b""] * bones)
                                             + overrides, cs))
    fp = bytearray(fixed_part)
    struct.pack_into("<I", fp, 0, bones + 1)
    c.add("ks", "name_count_plus_one", with_metadata(demo, bytes(fp) + strings_blob(strings) + overrides, cs))
    struct.pack_into("<I", fp, 0, 0xFFFFFFFF)
    c.add("ks", "name_count_max", with_metadata(demo, bytes(fp) + strings_blob(strings) + overrides, cs))
    c.add("ks", "string_past_end", with_metadata(demo, fixed_part + strings_blob(strings)[:-3] + b"\xff\xff", cs))
    for name, off, fmt, v in (("mode_7", 4, "<B", 7), ("tolerance_nan", 5, "<f", float("nan")),
                              ("tolerance_negative", 5, "<f", -1.0), ("shell_inf", 9, "<f", float("inf")),
                              ("rotation_threshold_huge", 17, "<f", 1e30), ("overrides_max", 25, "<I", 0xFFFFFFFF)):
        fp = bytearray(fixed_part)
        struct.pack_into(fmt, fp, off, v)
        c.add("ks", f"meta_{name}", with_metadata(demo, bytes(fp) + strings_blob(strings) + overrides, cs))
    fp = bytearray(fixed_part)
    struct.pack_into("<I", fp, 25, 2)
    bad_overrides = struct.pack("<Hff", 0xFFFF, 0.001, 0.03) + struct.pack("<Hff", 0, float("nan"), -1.0)
    c.add("ks", "meta_overrides_bad", with_metadata(demo, bytes(fp) + strings_blob(strings) + bad_overrides, cs))
    # zstd key streams: claims far past what the file could hold, and lies.
    one = [("claim_256mib_rle", zstd_rle_frame(256 << 20, 256 << 20)),
           ("claim_256mib_tiny", zstd_rle_frame(256 << 20, 64)),
           ("claim_4gib", zstd_rle_frame(0xFFFFFFFF, 64)),
           ("expands_within_bound_wrong_size", zstd_rle_frame(200 << 10, 200 << 10)),
           ("frame_garbage", b"\x28\xb5\x2f\xfd" + bytes(rng.randrange(256) for _ in range(60))),
           ("frame_empty", b"")]
    for name, frame in one:
        c.add("ks", f"zstd_{name}", with_key_stream(zstd1, struct.pack("<I", len(frame)) + frame, cs),
              note=f"zstd key stream: {name.replace('_', ' ')}")
    c.add("ks", "zstd_size_past_section", with_key_stream(zstd1, struct.pack("<I", 0xFFFFFFF0) + b"\0" * 16, cs))
    s = dict((n, (a, e)) for n, a, e in sections(zstdn))
    a, e = s["key stream"]
    section = bytearray(zstdn[a:e])
    struct.pack_into("<I", section, 0, 0)
    c.add("ks", "zstd_frame_size_zero", with_key_stream(zstdn, bytes(section), cs))
