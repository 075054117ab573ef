"""Binary FBX read and write, for making hostile FBX files out of real ones
(issue 39): a file parsed into records, records changed or added, and the
file written again with every record's end offset recomputed. FBX 7.4 and
older (32-bit offsets) and 7.5 (64-bit) are both read and written. Only what
the generators need: no footer checks, property payloads kept as bytes.
"""

import struct
import zlib

MAGIC = b"Kaydara FBX Binary  \x00\x1a\x00"
_ARRAY_ELEMENT = {"f": ("<f", 4), "d": ("<d", 8), "i": ("<i", 4), "l": ("<q", 8), "b": ("<B", 1), "c": ("<B", 1)}
_SCALAR = {"C": 1, "Y": 2, "I": 4, "F": 4, "D": 8, "L": 8}


class Record:
    """One node: a name, properties as (type, payload) pairs and children."""

    def __init__(self, name, props=(), children=None, closed=None):
        self.name = name if isinstance(name, bytes) else name.encode()
        self.props = list(props)
        self.children = list(children or [])
        # Whether a null record closes the children: always with children, and
        # as the file had it without (exporters differ on empty records).
        self.closed = closed

    def find(self, name):
        name = name if isinstance(name, bytes) else name.encode()
        return next((c for c in self.children if c.name == name), None)

    def all(self, name):
        name = name if isinstance(name, bytes) else name.encode()
        return [c for c in self.children if c.name == name]


# Property makers.

def i64(v):
    return ("L", struct.pack("<q", v))


def i32(v):
    return ("I", struct.pack("<i", v))


def f64(v):
    return ("D", struct.pack("<d", v))


def string(s):
    s = s if isinstance(s, bytes) else s.encode()
    return ("S", struct.pack("<I", len(s)) + s)


def object_name(name, cls):
    """FBX's "Name\\0\\1Class" object name."""
    name = name if isinstance(name, bytes) else name.encode()
    return string(name + b"\x00\x01" + cls.encode())


def array(kind, values, deflate=True):
    fmt, size = _ARRAY_ELEMENT[kind]
    raw = b"".join(struct.pack(fmt, v) for v in values) if not isinstance(values, bytes) else values
    count = len(raw) // size
    data = zlib.compress(raw, 9) if deflate else raw
    return (kind, struct.pack("<III", count, 1 if deflate else 0, len(data)) + data)


def array_values(prop):
    kind, payload = prop
    fmt, size = _ARRAY_ELEMENT[kind]
    count, encoding, stored = struct.unpack_from("<III", payload)
    data = payload[12:12 + stored]
    raw = zlib.decompress(data) if encoding else data
    return [struct.unpack_from(fmt, raw, i * size)[0] for i in range(count)]


def scalar(prop):
    kind, payload = prop
    if kind in ("S", "R"):
        return payload[4:]
    return struct.unpack({"C": "<B", "Y": "<h", "I": "<i", "F": "<f", "D": "<d", "L": "<q"}[kind], payload)[0]


# Reading.

def _read_props(data, offset, count):
    props = []
    for _ in range(count):
        kind = chr(data[offset])
        offset += 1
        if kind in _SCALAR:
            size = _SCALAR[kind]
        elif kind in ("S", "R"):
            size = 4 + struct.unpack_from("<I", data, offset)[0]
        elif kind in _ARRAY_ELEMENT:
            size = 12 + struct.unpack_from("<I", data, offset + 8)[0]
        else:
            raise ValueError(f"unknown FBX property type {kind!r} at byte {offset - 1}")
        props.append((kind, bytes(data[offset:offset + size])))
        offset += size
    return props, offset


def _read_record(data, offset, wide):
    head = "<QQQB" if wide else "<IIIB"
    end, count, _, name_length = struct.unpack_from(head, data, offset)
    offset += struct.calcsize(head)
    if end == 0:
        return None, offset
    name = bytes(data[offset:offset + name_length])
    props, offset = _read_props(data, offset + name_length, count)
    children, closed = [], False
    while offset < end:
        child, offset = _read_record(data, offset, wide)
        if child is None:
            closed = True
            break
        children.append(child)
    return Record(name, props, children, closed=closed), end


def parse(data):
    """(version, top-level records, footer) of a binary FBX file."""
    if not data.startswith(MAGIC):
        raise ValueError("not a binary FBX file")
    version = struct.unpack_from("<I", data, 23)[0]
    wide = version >= 7500
    records, offset = [], 27
    while offset < len(data):
        record, offset = _read_record(data, offset, wide)
        if record is None:
            break
        records.append(record)
    return version, records, bytes(data[offset:])


# Writing.

def _write_record(out, record, wide):
    head = "<QQQB" if wide else "<IIIB"
    start = len(out)
    out += bytes(struct.calcsize(head))
    out += record.name
    props = b"".join(kind.encode() + payload for kind, payload in record.props)
    out += props
    for child in record.children:
        _write_record(out, child, wide)
    if record.children or (record.closed if record.closed is not None else not record.props):
        out += bytes(struct.calcsize(head))  # the null record closing the children
    struct.pack_into(head, out, start, len(out), len(record.props), len(props), len(record.name))


def write(version, records, footer):
    """The file of `records`; `footer` (what followed the top level's null record) is kept as it was."""
    wide = version >= 7500
    out = bytearray(MAGIC + struct.pack("<I", version))
    for record in records:
        _write_record(out, record, wide)
    out += bytes(struct.calcsize("<QQQB" if wide else "<IIIB"))
    return bytes(out + footer)


# What the generators change.

def objects(records):
    return next(r for r in records if r.name == b"Objects")


def connections(records):
    return next(r for r in records if r.name == b"Connections")


def limb_node(uid, name):
    """A bare LimbNode Model (no Properties70: rest pose at the origin)."""
    return Record("Model", [i64(uid), object_name(name, "Model"), string("LimbNode")],
                  [Record("Version", [i32(232)]), Record("Culling", [string("CullingOff")])])


def connect(child, parent):
    return Record("C", [string("OO"), i64(child), i64(parent)])


def first_limb(records):
    """The id of the first LimbNode Model, the parent generated bones hang from."""
    for record in objects(records).all("Model"):
        if len(record.props) >= 3 and scalar(record.props[2]) == b"LimbNode":
            return scalar(record.props[0])
    raise ValueError("the file has no LimbNode")


# The hostile variants of a real binary FBX (issue 39), each a few fields changed.

def zero_key_curves(data):
    """Every AnimationCurve emptied: no key times, no values, one attribute run of no keys."""
    version, records, footer = parse(data)
    for curve in objects(records).all("AnimationCurve"):
        for child in curve.children:
            if child.name == b"KeyTime":
                child.props = [array("l", [])]
            elif child.name in (b"KeyValueFloat", b"KeyAttrDataFloat"):
                child.props = [array("f", [])]
            elif child.name in (b"KeyAttrFlags",):
                child.props = [array("i", [])]
            elif child.name == b"KeyAttrRefCount":
                child.props = [array("i", [0])]
    return write(version, records, footer)


def _with_bones(data, count, chain):
    version, records, footer = parse(data)
    parent = first_limb(records)
    models, links = objects(records), connections(records)
    for b in range(count):
        uid = 9_000_000_000 + b
        models.children.append(limb_node(uid, f"g{b}"))
        links.children.append(connect(uid, parent))
        if chain:
            parent = uid
    return write(version, records, footer)


def parent_chain(data, depth):
    """`depth` bones added, each the child of the one before."""
    return _with_bones(data, depth, chain=True)


def siblings(data, count):
    """`count` bones added side by side under the first bone."""
    return _with_bones(data, count, chain=False)


def long_curve(data, keys):
    """The first AnimationCurve given `keys` keys, one per FBX tick step of 1/30 s."""
    version, records, footer = parse(data)
    curve = objects(records).all("AnimationCurve")[0]
    step = 46186158000 // 30
    for child in curve.children:
        if child.name == b"KeyTime":
            child.props = [array("l", [k * step for k in range(keys)])]
        elif child.name == b"KeyValueFloat":
            child.props = [array("f", [float(k % 90) for k in range(keys)])]
        elif child.name == b"KeyAttrRefCount":
            child.props = [array("i", [keys])]
    return write(version, records, footer)
