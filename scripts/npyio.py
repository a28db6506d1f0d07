"""NumPy .npy files in plain Python (no NumPy), for the scripts that write
the inputs of tests and examples and check their outputs: version 1.0 files
of little-endian f4 / i1 / i4 / i8 arrays, as indexpool-run reads and writes
them. Import it with `sys.path` pointing at this folder."""
import ast
import struct

_FORMATS = {"<f4": "f", "|i1": "b", "<i4": "i", "<i8": "q"}


def write_npy_bytes(path, descr, shape, payload):
    """Writes `payload`, the array's little-endian bytes, as `shape` and
    `descr` (fast for large arrays built as bytes)."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (
        descr, tuple(shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode())
        f.write(payload)


def write_npy(path, descr, shape, values):
    """Writes `values` (a flat list) as an array of `shape` and `descr`."""
    fmt = _FORMATS[descr]
    write_npy_bytes(path, descr, shape,
                    struct.pack("<%d%s" % (len(values), fmt), *values))


def read_npy_bytes(path):
    """(header dict, the array's bytes) of a .npy file."""
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    length = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + length].decode())
    return header, data[10 + length:]


def read_npy(path):
    """(shape, flat list of values) of a .npy file."""
    header, body = read_npy_bytes(path)
    fmt = _FORMATS[header["descr"]]
    count = len(body) // struct.calcsize(fmt)
    return header["shape"], list(struct.unpack("<%d%s" % (count, fmt), body))
