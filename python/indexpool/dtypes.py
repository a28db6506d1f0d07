"""IndexPool's element types in NumPy and PyTorch.

NumPy has neither bf16 nor FP8, so IndexPool passes their storage formats:

==========  =====================  ===========================
IndexPool   NumPy                  torch
==========  =====================  ===========================
f32         float32                torch.float32
f16         float16                torch.float16
bf16        uint16 (bit patterns)  torch.bfloat16
f8E4M3FN    uint8 (OCP E4M3 codes) torch.uint8 (the same codes)
i8          int8                   torch.int8
i32         int32                  torch.int32
i64         int64                  torch.int64
==========  =====================  ===========================

The decode/encode helpers convert between those formats and float32 with the
C++ API's conversions (round to nearest even, FP8 saturating to +-448), the
ones the compiled code uses.
"""

import numpy as np

from . import _indexpool

#: IndexPool's dtype names, in the order of the C++ DType enum.
NAMES = tuple(_indexpool.dtype_codes)
#: name -> the C++ DType code.
CODES = dict(_indexpool.dtype_codes)
#: Code types of the page layouts only ("i4": two codes a byte in the
#: int8 pages; no tensor has it): name -> the C++ DType code.
PAGE_CODES = dict(_indexpool.page_code_types)

#: ElementTypes.def's rows (name, code, bits, uses, qmax, storage dtypes),
#: as the extension was built with them.
TABLE = tuple(dict(row) for row in _indexpool.element_types)

_NUMPY = {row["name"]: np.dtype(row["numpy"]) for row in TABLE if row["tensor"]}
_ALIASES = {
    "float32": "f32", "float": "f32", "float16": "f16", "half": "f16",
    "bfloat16": "bf16", "float8_e4m3fn": "f8E4M3FN", "f8e4m3fn": "f8E4M3FN",
    "fp8": "f8E4M3FN", "int8": "i8", "int32": "i32", "int64": "i64",
    # The storage formats of the table above.
    "uint16": "bf16", "uint8": "f8E4M3FN",
}


def _torch_table():
    import torch

    return {row["name"]: getattr(torch, row["torch"])
            for row in TABLE if row["tensor"]}


def name(dtype):
    """IndexPool's name ("bf16", ...) of a name, a NumPy dtype or a torch
    dtype: uint16 means bf16 and uint8 means f8E4M3FN (the table above)."""
    if isinstance(dtype, str):
        if dtype in CODES:
            return dtype
        key = dtype.lower()
    elif type(dtype).__module__ == "torch":
        key = str(dtype).split(".")[-1]
    else:
        key = np.dtype(dtype).name
    if key in _ALIASES:
        return _ALIASES[key]
    raise TypeError(f"not an IndexPool element type: {dtype!r} "
                    f"(one of {', '.join(NAMES)})")


def code(dtype):
    """The C++ DType code of `dtype` (anything name() takes, or a page
    code type: "i4")."""
    if isinstance(dtype, str) and dtype in PAGE_CODES:
        return PAGE_CODES[dtype]
    return CODES[name(dtype)]


def numpy_dtype(dtype):
    """The NumPy dtype holding `dtype`'s storage format."""
    return _NUMPY[name(dtype)]


def torch_dtype(dtype):
    """The torch dtype holding `dtype` (torch.uint8 for f8E4M3FN codes)."""
    return _torch_table()[name(dtype)]


def _as_numpy(values):
    if type(values).__module__ == "torch":
        import torch

        if values.dtype == torch.bfloat16:
            values = values.view(torch.int16)
        values = values.detach().cpu().numpy()
    return np.asarray(values)


_F8_TABLE = _indexpool.decode(np.arange(256, dtype=np.uint8), CODES["f8E4M3FN"])


def decode_f8e4m3fn(codes):
    """float32 values of f8E4M3FN codes (uint8 NumPy array or torch tensor)."""
    codes = _as_numpy(codes)
    if codes.dtype not in (np.uint8, np.int8):
        raise TypeError(f"f8E4M3FN codes are uint8, got {codes.dtype}")
    return _F8_TABLE[codes.view(np.uint8)]


def decode_bf16(bits):
    """float32 values of bf16 bit patterns (uint16 array or torch.bfloat16)."""
    bits = _as_numpy(bits)
    if bits.dtype not in (np.uint16, np.int16):
        raise TypeError(f"bf16 bit patterns are uint16, got {bits.dtype}")
    return _indexpool.decode(np.ascontiguousarray(bits).view(np.uint16),
                             CODES["bf16"])


def encode_f8e4m3fn(values):
    """f8E4M3FN codes (uint8) of `values`, rounded to nearest even and
    saturated to +-448 as the compiled code does."""
    return _indexpool.encode(_as_numpy(values), CODES["f8E4M3FN"])


def encode_bf16(values):
    """bf16 bit patterns (uint16) of `values`, rounded to nearest even."""
    return _indexpool.encode(_as_numpy(values), CODES["bf16"])
