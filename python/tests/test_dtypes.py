"""The dtype convention and the decode/encode helpers."""

import numpy as np
import pytest

import indexpool
from indexpool import dtypes


def test_names():
    assert dtypes.NAMES == ("f32", "f16", "bf16", "f8E4M3FN", "i8", "i32",
                            "i64")
    assert dtypes.name(np.float32) == "f32"
    assert dtypes.name(np.uint16) == "bf16"
    assert dtypes.name(np.dtype("uint8")) == "f8E4M3FN"
    assert dtypes.name("bfloat16") == "bf16"
    assert dtypes.numpy_dtype("bf16") == np.uint16
    with pytest.raises(TypeError):
        dtypes.name(np.float64)


def test_f8e4m3fn():
    codes = np.array([0x00, 0x38, 0xB8, 0x7E, 0xFE, 0x01, 0x08, 0x7F],
                     dtype=np.uint8)
    values = indexpool.decode_f8e4m3fn(codes)
    assert values.dtype == np.float32
    np.testing.assert_array_equal(values[:7], [0.0, 1.0, -1.0, 448.0, -448.0,
                                               2.0**-9, 2.0**-6])
    assert np.isnan(values[7])
    # Round trip of every finite code; saturation at 448.
    finite = np.array([c for c in range(256) if c & 0x7F != 0x7F], np.uint8)
    np.testing.assert_array_equal(
        indexpool.encode_f8e4m3fn(indexpool.decode_f8e4m3fn(finite)), finite)
    assert indexpool.encode_f8e4m3fn(np.float32([1000.0]))[0] == 0x7E


def test_bf16(rng):
    values = rng.standard_normal(1000, dtype=np.float32)
    bits = indexpool.encode_bf16(values)
    assert bits.dtype == np.uint16
    decoded = indexpool.decode_bf16(bits)
    np.testing.assert_allclose(decoded, values, rtol=2.0**-8)
    np.testing.assert_array_equal(decoded.view(np.uint32) & 0xFFFF, 0)
    np.testing.assert_array_equal(indexpool.encode_bf16(decoded), bits)
