"""BVH files for the hostile corpus: a small valid hierarchy (bvh()) with
its channel counts, frame counts, frame time and values made wrong (negative,
NaN, 4e9, 2^64, words), its text cut or unbalanced, 20,000 nested or 50,000
sibling joints, names carrying escape sequences, invalid UTF-8 or 70,000
characters, and the shared CMU clip cut at several points. BVH is text read
by our own parser, so every field it converts is a case here.
"""

from .common import CLIPS, special_paths

def bvh(joints=3, frames=40, frame_time="0.033333", channels=None, names=None, values=None, header_frames=None,
        end_site=True):
    names = names or [f"J{i}" for i in range(joints)]
    lines = ["HIERARCHY"]
    total = 0
    for i in range(joints):
        ind = "  " * i if joints < 100 else ""
        chans = channels[i] if channels else ("6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"
                                              if i == 0 else "3 Zrotation Xrotation Yrotation")
        lines += [f"{ind}{'ROOT' if i == 0 else 'JOINT'} {names[i]}", f"{ind}{{",
                  f"{ind}  OFFSET 0.0 {10.0 if i else 0.0} 0.0"]
        if chans is not None:
            lines.append(f"{ind}  CHANNELS {chans}")
            total += len(chans.split()) - 1  # the channels named, whatever the count claims
    if end_site:
        ind = "  " * joints if joints < 100 else ""
        lines += [f"{ind}End Site", f"{ind}{{", f"{ind}  OFFSET 0.0 5.0 0.0", f"{ind}}}"]
    for i in reversed(range(joints)):
        lines.append(("  " * i if joints < 100 else "") + "}")
    lines += ["MOTION", f"Frames: {frames if header_frames is None else header_frames}", f"Frame Time: {frame_time}"]
    for f in range(frames):
        if values is not None:
            lines.append(values(f, total))
        else:
            lines.append(" ".join(f"{(f * 7 + k) % 13 * 0.5:.3f}" for k in range(total)))
    return "\n".join(lines) + "\n"


def bvh_corpus(c):
    special_paths(c, "bvh")
    c.add("bvh", "valid_small", bvh())
    c.add("bvh", "missing_channels", bvh(channels=["6 Xposition Yposition Zposition Zrotation Xrotation Yrotation",
                                                   None, "3 Zrotation Xrotation Yrotation"]))
    for name, ch in (("channels_zero", "0"), ("channels_seven", "7 Xposition Yposition Zposition Zrotation Xrotation "
                                                               "Yrotation Xrotation"),
                     ("channels_4e9", "4294967296 Zrotation Xrotation Yrotation"),
                     ("channels_1e9_short", "1000000000 Zrotation"), ("channels_negative", "-3 Zrotation Xrotation"),
                     ("channels_bogus_name", "3 Zrotation Xrotation Wrotation"),
                     ("channels_repeated", "3 Zrotation Zrotation Zrotation"),
                     ("channels_not_number", "three Zrotation Xrotation Yrotation")):
        c.add("bvh", name, bvh(channels=[ch, "3 Zrotation Xrotation Yrotation", "3 Zrotation Xrotation Yrotation"]))
    for name, hf in (("frames_negative", "-1"), ("frames_zero", "0"), ("frames_4e9", "4294967295"),
                     ("frames_2p64", "18446744073709551617"), ("frames_1e9_few_lines", "1000000000"),
                     ("frames_not_number", "many"), ("frames_float", "3.5")):
        c.add("bvh", name, bvh(header_frames=hf))
    c.add("bvh", "frames_huge_real", bvh(joints=1, frames=1200000, values=lambda f, n: "0 0 0 0 0 0"),
          note="1,200,000 real frames of one joint")
    for name, ft in (("frame_time_zero", "0"), ("frame_time_negative", "-0.033"), ("frame_time_nan", "nan"),
                     ("frame_time_inf", "inf"), ("frame_time_1e-38", "1e-38"), ("frame_time_1e39", "1e39"),
                     ("frame_time_1e-300", "1e-300")):
        c.add("bvh", name, bvh(frame_time=ft))
    for name, v in (("values_nan", "nan"), ("values_inf", "inf"), ("values_1e39", "1e39"), ("values_1e400", "1e400"),
                    ("values_word", "abc"), ("values_double_dot", "1.0.0"), ("values_hex", "0x10"),
                    ("values_huge_rotation", "1e30")):
        c.add("bvh", name, bvh(values=lambda f, n, v=v: " ".join([v] + ["0.5"] * (n - 1))))
    c.add("bvh", "motion_truncated_line", bvh()[:-10])
    c.add("bvh", "motion_extra_values", bvh(values=lambda f, n: " ".join(["0.5"] * (n + 5))))
    c.add("bvh", "motion_missing", bvh().split("MOTION")[0])
    c.add("bvh", "hierarchy_unbalanced", bvh().replace("}\nMOTION", "MOTION", 1))
    c.add("bvh", "no_root", bvh().replace("ROOT", "JOINT"))
    c.add("bvh", "offset_missing_values", bvh().replace("OFFSET 0.0 10.0 0.0", "OFFSET 0.0", 1))
    c.add("bvh", "offset_nan", bvh().replace("OFFSET 0.0 10.0 0.0", "OFFSET nan inf -inf", 1))
    c.add("bvh", "deep_20000", bvh(joints=20000, frames=2, values=lambda f, n: " ".join(["0"] * n)),
          note="20,000 nested joints")
    flat = ["HIERARCHY", "ROOT R", "{", "OFFSET 0 0 0", "CHANNELS 3 Zrotation Xrotation Yrotation"]
    flat += [f"JOINT j{i}\n{{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n}}" for i in range(50000)]
    flat += ["}", "MOTION", "Frames: 2", "Frame Time: 0.03"] + [" ".join(["0"] * (3 * 50001))] * 2
    c.add("bvh", "flat_50000", "\n".join(flat) + "\n", note="50,000 sibling joints")
    c.add("bvh", "escape_names", bvh(names=["\x1b]0;pwned\x07", "\x1b[2J\x1b[31mred", "bell\x07"]))
    c.add("bvh", "name70000", bvh(names=["N" * 70000, "b", "c"]))
    c.add("bvh", "invalid_utf8_names", bvh(names=["\udcff\udcfe", "b", "c"]))
    c.add("bvh", "nul_bytes", bvh().replace("J1", "J\0 1"))
    c.add("bvh", "end_site_children", bvh().replace("OFFSET 0.0 5.0 0.0", "OFFSET 0 5 0\nJOINT x\n{\n}", 1))
    c.add("bvh", "crlf", bvh().replace("\n", "\r\n"))
    c.add("bvh", "only_header", "HIERARCHY\n")
    cmu = CLIPS / "cmu_cc4_001_14.bvh"
    if cmu.exists():
        data = cmu.read_bytes()
        for frac in (0.01, 0.3, 0.6, 0.999):
            c.add("bvh", f"cmu_truncated_{int(frac * 1000)}", data[:int(len(data) * frac)],
                  note=f"the shared CMU clip cut at {frac:.1%}")
