#!/usr/bin/env python3
"""Writes the TensorBundle fixtures of tests/savedmodel/testdata with
TensorFlow; tests/savedmodel/tensor_bundle_test.cc reads them and never needs
Python. Run this only to regenerate them (TensorFlow 2.21 was used):

    python3 tests/savedmodel/gen_tensor_bundles.py

Bundles (each a checkpoint prefix under testdata/):

    dtypes/ckpt         tf.raw_ops.SaveV2 of one tensor per dtype weft reads
                        (float, double, int8..int64, uint8..uint64, bool,
                        half, bfloat16, complex64/128, string), an empty
                        tensor, scalars, strings with 0x00/0xff bytes and a
                        200-byte one (two-byte varint length).
    sharded/ckpt        two SaveV2 bundles merged by tf.raw_ops.
                        MergeV2Checkpoints: two data shards.
    partitioned/ckpt    a TF1 variable split by fixed_size_partitioner, saved
                        by tf.compat.v1.train.Saver (slices along dimension
                        0, every dimension's extent given), plus SaveV2
                        slices along dimension 1 ("-" for dimension 0).
                        TensorFlow cannot read back partitioned strings
                        (its slice reader has no string copy), so there are
                        none.
    object/ckpt         tf.train.Checkpoint of two variables: the TF2 keys
                        ("x/.ATTRIBUTES/VARIABLE_VALUE") and the
                        _CHECKPOINTABLE_OBJECT_GRAPH string.
    reblocked/ckpt      dtypes/ckpt's entries rewritten by this script's
                        SSTable writer into 64-byte blocks with a restart
                        point every 2 entries: many data blocks, shared key
                        prefixes across restarts. Same data file.

manifest.txt holds what TensorFlow's own reader (tf.train.load_checkpoint)
returns for every key of every bundle, one tensor a line, tab-separated:

    BUNDLE  KEY(hex)  DTYPE  SHAPE([2,3])  VALUE

VALUE is the hex of the little-endian bytes for plain dtypes and the
comma-separated hex of each element for strings.

corrupt/NAME/ckpt are copies of a two-tensor bundle (a: float [2,3],
b: int32 [4]) whose index this script rewrote with one entry damaged:

    wrong_size      a's size 4 bytes too large
    wrong_dtype     a stored as double (size disagrees with dtype x shape)
    unknown_dtype   a's dtype 99
    absurd_shape    a's shape [2^40, 2^40] (elements overflow)
    huge_shape      a's shape [2^30, 2^20] and a matching size (4 PiB,
                    past the end of the data file)
    bad_shard       b in shard 3 of 1
    missing_slice   a partitioned entry whose second slice key is absent
    resource        b's dtype resource (readable index, unreadable tensor)
"""
import os
import shutil
import struct
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import tensor_bundle_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "testdata")

# ---- CRC-32C and the SSTable format ---------------------------------------

_CRC_TABLE = []
for _b in range(256):
    _c = _b
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 if _c & 1 else 0)
    _CRC_TABLE.append(_c)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = (crc >> 8) ^ _CRC_TABLE[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFFFFFF


def mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(buf, pos):
    v, shift = 0, 0
    while True:
        b = buf[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, pos


MAGIC = 0xDB4775248B80FB57


def read_block(buf, off, size):
    contents = buf[off:off + size]
    ctype = buf[off + size]
    stored = struct.unpack("<I", buf[off + size + 1:off + size + 5])[0]
    assert ctype == 0, "compressed block"
    assert mask(crc32c(contents + bytes([ctype]))) == stored, "block crc"
    (nrest,) = struct.unpack("<I", contents[-4:])
    end = len(contents) - 4 - 4 * nrest
    pos, key, out = 0, b"", []
    while pos < end:
        shared, pos = read_varint(contents, pos)
        unshared, pos = read_varint(contents, pos)
        vlen, pos = read_varint(contents, pos)
        key = key[:shared] + contents[pos:pos + unshared]
        pos += unshared
        out.append((key, contents[pos:pos + vlen]))
        pos += vlen
    return out


def read_sstable(path):
    """All (key, value) pairs of a table, checking every block's CRC."""
    buf = open(path, "rb").read()
    footer = buf[-48:]
    assert struct.unpack("<Q", footer[40:])[0] == MAGIC
    pos = 0
    _, pos = read_varint(footer, pos)
    _, pos = read_varint(footer, pos)
    ioff, pos = read_varint(footer, pos)
    isize, pos = read_varint(footer, pos)
    entries = []
    for _, handle in read_block(buf, ioff, isize):
        boff, p = read_varint(handle, 0)
        bsize, p = read_varint(handle, p)
        entries += read_block(buf, boff, bsize)
    return entries


def write_sstable(path, entries, block_size=262144, restart_interval=16):
    """LevelDB's table layout, uncompressed, as TensorFlow writes it."""
    out = bytearray()

    def finish_block(block_entries, interval):
        body, restarts, last = bytearray(), [], b""
        for i, (k, v) in enumerate(block_entries):
            shared = 0
            if i % interval == 0:
                restarts.append(len(body))
            else:
                while (shared < min(len(k), len(last))
                       and k[shared] == last[shared]):
                    shared += 1
            body += varint(shared) + varint(len(k) - shared) + varint(len(v))
            body += k[shared:] + v
            last = k
        if not restarts:
            restarts = [0]
        for r in restarts:
            body += struct.pack("<I", r)
        body += struct.pack("<I", len(restarts))
        handle = varint(len(out)) + varint(len(body))
        out.extend(body)
        out.extend(b"\x00" + struct.pack("<I", mask(crc32c(bytes(body) + b"\x00"))))
        return handle

    index, block, size = [], [], 0
    for k, v in entries:
        block.append((k, v))
        size += len(k) + len(v) + 3
        if size >= block_size:
            index.append((k, finish_block(block, restart_interval)))
            block, size = [], 0
    if block:
        index.append((block[-1][0], finish_block(block, restart_interval)))
    meta = finish_block([], 1)
    idx = finish_block(index, 1)
    footer = bytearray(meta + idx)
    footer += b"\x00" * (40 - len(footer))
    footer += struct.pack("<Q", MAGIC)
    out.extend(footer)
    with open(path, "wb") as f:
        f.write(out)


# ---- TensorFlow's OrderedCode slice keys (to check the index) -------------


def encode_slice_key(name, extents):
    def num(v):
        b = v.to_bytes((v.bit_length() + 7) // 8, "big") if v else b""
        return bytes([len(b)]) + b

    def signed(v):
        x = ~v if v < 0 else v
        if x < 64:
            return bytes([(0x80 ^ v) & 0xFF])
        n = (x.bit_length() + 7) // 7
        raw = (v & ((1 << 80) - 1)).to_bytes(10, "big")[10 - n:]
        header = [0, 0x80, 0xC0, 0xE0, 0xF0, 0xF8, 0xFC, 0xFE, 0xFF,
                  0xFF, 0xFF][n]
        second = [0] * 9 + [0x80, 0xC0]
        raw = bytearray(raw)
        raw[0] ^= header
        raw[1] ^= second[n]
        return bytes(raw)

    s = name.replace(b"\x00", b"\x00\xff").replace(b"\xff", b"\xff\x00")
    out = num(0) + s + b"\x00\x01" + num(len(extents))
    for start, length in extents:
        out += signed(start) + signed(length)
    return out


# ---- the fixtures ---------------------------------------------------------

WEFT_NAMES = {
    "float32": "float", "float64": "double", "int8": "int8", "int16": "int16",
    "int32": "int32", "int64": "int64", "uint8": "uint8", "uint16": "uint16",
    "uint32": "uint32", "uint64": "uint64", "bool": "bool", "float16": "half",
    "bfloat16": "bfloat16", "complex64": "complex64",
    "complex128": "complex128", "string": "string",
}


def save(prefix, tensors, slices=None):
    names = list(tensors)
    specs = [(slices or {}).get(n, "") for n in names]
    tf.raw_ops.SaveV2(prefix=prefix,
                      tensor_names=[n.split("#")[0] for n in names],
                      shape_and_slices=specs,
                      tensors=[tensors[n] for n in names])


def dtype_tensors():
    rng = np.random.default_rng(7)
    t = {
        "f32": tf.constant(rng.standard_normal((2, 3)), tf.float32),
        "f64": tf.constant(rng.standard_normal(3), tf.float64),
        "i8": tf.constant([-128, -1, 0, 127], tf.int8),
        "i16": tf.constant([-32768, 5, 32767], tf.int16),
        "i32": tf.constant([[-2147483648, 1], [2, 2147483647]], tf.int32),
        "i64": tf.constant([-(2 ** 63), 3, 2 ** 63 - 1], tf.int64),
        "u8": tf.constant([0, 1, 255], tf.uint8),
        "u16": tf.constant([0, 65535], tf.uint16),
        "u32": tf.constant([0, 4294967295], tf.uint32),
        "u64": tf.constant([0, 2 ** 64 - 1], tf.uint64),
        "bool": tf.constant([True, False, True], tf.bool),
        "half": tf.constant([0.5, -2.0, 65504.0], tf.float16),
        "bf16": tf.constant([1.0, -3.5, 1e30], tf.bfloat16),
        "c64": tf.constant([1 + 2j, -3.5j], tf.complex64),
        "c128": tf.constant([0.25 - 1j], tf.complex128),
        "scalar": tf.constant(42.5, tf.float32),
        "empty": tf.zeros((0, 4), tf.float32),
        "str": tf.constant([b"hello", b"", b"a\x00b\xffc", b"x" * 200]),
        "str_scalar": tf.constant(b"weft"),
        "str_empty": tf.constant([], tf.string),
        "nested/name with space": tf.constant([7], tf.int32),
    }
    return t


def manifest_lines(bundle, prefix):
    reader = tf.train.load_checkpoint(prefix)
    lines = []
    dtypes = reader.get_variable_to_dtype_map()
    for key in sorted(dtypes, key=lambda k: k.encode()):
        dt = tf.as_dtype(dtypes[key])
        value = reader.get_tensor(key)
        name = WEFT_NAMES[dt.name]
        arr = np.asarray(value)
        shape = "[" + ",".join(str(d) for d in arr.shape) + "]"
        if name == "string":
            flat = arr.reshape(-1)
            payload = ",".join(bytes(s).hex() for s in flat)
        else:
            payload = np.ascontiguousarray(arr).tobytes().hex()
        lines.append("\t".join([bundle, key.encode().hex(), name, shape,
                                payload]))
    return lines


def rewrite_index(src_prefix, dst_prefix, edit=None, **table_opts):
    """Copies a bundle, rewriting its index with `edit(key, entry)`."""
    os.makedirs(os.path.dirname(dst_prefix), exist_ok=True)
    entries = read_sstable(src_prefix + ".index")
    out = []
    for key, value in entries:
        if key and edit is not None:
            e = tensor_bundle_pb2.BundleEntryProto.FromString(value)
            e = edit(key, e)
            if e is None:
                continue
            value = e.SerializeToString()
        out.append((key, value))
    write_sstable(dst_prefix + ".index", out, **table_opts)
    base = os.path.basename(src_prefix)
    for f in os.listdir(os.path.dirname(src_prefix)):
        if f.startswith(base + ".data-"):
            shutil.copy(os.path.join(os.path.dirname(src_prefix), f),
                        os.path.join(os.path.dirname(dst_prefix),
                                     os.path.basename(dst_prefix) +
                                     f[len(base):]))


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    lines = []

    # dtypes
    prefix = os.path.join(OUT, "dtypes", "ckpt")
    save(prefix, dtype_tensors())
    lines += manifest_lines("dtypes", prefix)

    # sharded: two bundles merged.
    tmp = tempfile.mkdtemp()
    p0, p1 = os.path.join(tmp, "part0"), os.path.join(tmp, "part1")
    save(p0, {"s0/a": tf.constant([1.0, 2.0, 3.0]),
              "s0/b": tf.constant([[1, 2], [3, 4]], tf.int64)})
    save(p1, {"s1/c": tf.constant([b"shard", b"one"]),
              "s1/d": tf.constant([-1.5], tf.float64)})
    prefix = os.path.join(OUT, "sharded", "ckpt")
    os.makedirs(os.path.dirname(prefix))
    tf.raw_ops.MergeV2Checkpoints(checkpoint_prefixes=[p0, p1],
                                  destination_prefix=prefix,
                                  delete_old_dirs=False)
    shutil.rmtree(tmp)
    assert os.path.exists(prefix + ".data-00001-of-00002")
    lines += manifest_lines("sharded", prefix)

    # partitioned: a TF1 partitioned variable saved by Saver, into a
    # temporary bundle, then SaveV2 slices of two more tensors merged in.
    def by_offset(shape, dtype=None, partition_info=None):
        # Values that tell the partitions apart: the full tensor is
        # arange(15) / 2 as [5, 3].
        row = partition_info.var_offset[0] if partition_info else 0
        n = shape[0] * shape[1]
        start = row * shape[1]
        return tf.reshape(tf.range(start, start + n, dtype=tf.float32) / 2,
                          shape)

    tmp = tempfile.mkdtemp()
    g = tf.Graph()
    with g.as_default():
        v = tf.compat.v1.get_variable(
            "emb", shape=[5, 3], dtype=tf.float32,
            initializer=by_offset,
            partitioner=tf.compat.v1.fixed_size_partitioner(3))
        w = tf.compat.v1.get_variable(
            "plain", initializer=tf.constant([1, 2, 3], tf.int32))
        saver = tf.compat.v1.train.Saver([v, w], sharded=False)
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(tmp, "tf1"), write_meta_graph=False)
    full = np.arange(24, dtype=np.float32).reshape(4, 6)
    save(os.path.join(tmp, "raw"),
         {"cols#0": tf.constant(full[:, :2]), "cols#1": tf.constant(full[:, 2:])},
         slices={"cols#0": "4 6 0,4:0,2", "cols#1": "4 6 -:2,4"})
    prefix = os.path.join(OUT, "partitioned", "ckpt")
    os.makedirs(os.path.dirname(prefix))
    tf.raw_ops.MergeV2Checkpoints(
        checkpoint_prefixes=[os.path.join(tmp, "tf1"), os.path.join(tmp, "raw")],
        destination_prefix=prefix, delete_old_dirs=False)
    shutil.rmtree(tmp)
    keys = dict(read_sstable(prefix + ".index"))
    assert encode_slice_key(b"emb", [(0, 2), (0, 3)]) in keys, keys.keys()
    assert encode_slice_key(b"cols", [(0, -1), (2, 4)]) in keys, keys.keys()
    lines += manifest_lines("partitioned", prefix)

    # object-based checkpoint
    ckpt = tf.train.Checkpoint(x=tf.Variable([[1.0, 2.0]]),
                               step=tf.Variable(7, dtype=tf.int64))
    path = ckpt.write(os.path.join(OUT, "object", "ckpt"))
    assert path.endswith("object/ckpt"), path
    lines += manifest_lines("object", path)

    # reblocked: many small blocks.
    rewrite_index(os.path.join(OUT, "dtypes", "ckpt"),
                  os.path.join(OUT, "reblocked", "ckpt"),
                  block_size=64, restart_interval=2)
    assert len(read_sstable(os.path.join(OUT, "reblocked", "ckpt.index"))) == \
        len(read_sstable(os.path.join(OUT, "dtypes", "ckpt.index")))
    lines += manifest_lines("reblocked", os.path.join(OUT, "reblocked", "ckpt"))

    with open(os.path.join(OUT, "manifest.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")

    # corrupt corpus from one small bundle.
    tmp = tempfile.mkdtemp()
    base = os.path.join(tmp, "base")
    save(base, {"a": tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
                "b": tf.constant([1, 2, 3, 4], tf.int32)})

    def on(key_name, fn):
        def edit(key, e):
            return fn(e) if key == key_name else e
        return edit

    def wrong_size(e):
        e.size += 4
        return e

    def wrong_dtype(e):
        e.dtype = tf.float64.as_datatype_enum
        return e

    def unknown_dtype(e):
        e.dtype = 99
        return e

    def shape(dims, size=None):
        def fn(e):
            del e.shape.dim[:]
            for d in dims:
                e.shape.dim.add(size=d)
            if size is not None:
                e.size = size
            return e
        return fn

    def bad_shard(e):
        e.shard_id = 3
        return e

    def resource(e):
        e.dtype = tf.resource.as_datatype_enum
        return e

    corrupt = {
        "wrong_size": on(b"a", wrong_size),
        "wrong_dtype": on(b"a", wrong_dtype),
        "unknown_dtype": on(b"a", unknown_dtype),
        "absurd_shape": on(b"a", shape([2 ** 40, 2 ** 40])),
        "huge_shape": on(b"a", shape([2 ** 30, 2 ** 20], 4 * 2 ** 50)),
        "bad_shard": on(b"b", bad_shard),
        "resource": on(b"b", resource),
    }
    for name, edit in corrupt.items():
        rewrite_index(base, os.path.join(OUT, "corrupt", name, "ckpt"), edit)

    # missing_slice: a partitioned tensor with one of its two slices dropped.
    save(os.path.join(tmp, "sliced"),
         {"p#0": tf.constant([1.0, 2.0]), "p#1": tf.constant([3.0, 4.0])},
         slices={"p#0": "4 0,2", "p#1": "4 2,2"})
    drop = encode_slice_key(b"p", [(2, 2)])
    rewrite_index(os.path.join(tmp, "sliced"),
                  os.path.join(OUT, "corrupt", "missing_slice", "ckpt"),
                  lambda key, e: None if key == drop else e)
    shutil.rmtree(tmp)

    total = 0
    for root, _, files in os.walk(OUT):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    print("wrote", OUT, total, "bytes")


if __name__ == "__main__":
    main()
