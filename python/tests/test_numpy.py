"""Compiled functions called with NumPy arrays: results against the float64
reference and an independent NumPy check; zero copies; dynamic sizes."""

import numpy as np
import pytest

import indexpool
from conftest import compress_inputs


def numpy_compress_f8(keys, scores, pool_size=4):
    """compress of per-token scores, unrotated, in float64: the pooled keys
    and the scales the FP8 codes should decode to (absmax / 448)."""
    groups = keys.shape[0] // pool_size
    x = scores[: groups * pool_size].reshape(groups, pool_size)
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    k = keys[: groups * pool_size].reshape(groups, pool_size, -1)
    pooled = (weights[:, :, None] * k.astype(np.float64)).sum(axis=1)
    absmax = np.maximum(np.abs(pooled).max(axis=1), 1e-4)
    return pooled, absmax / 448.0, weights


def test_compress_from_text_matches_numpy(rng, compress_text_module,
                                          compress_text_function):
    keys, scores = compress_inputs(rng, 1024 + 3, 64)
    codes, scales, weights = compress_text_function(keys, scores)
    assert codes.dtype == np.uint8 and codes.shape == (256, 64)
    assert scales.dtype == np.float32 and weights.shape == (256, 4)

    report = indexpool.verify(compress_text_module, "compress",
                              (keys, scores), (codes, scales, weights))
    assert len(report) == 3 and all(line.endswith("ok") for line in report)

    pooled, expected_scales, expected_weights = numpy_compress_f8(keys, scores)
    np.testing.assert_allclose(scales, expected_scales, rtol=1e-5)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-5, atol=1e-7)
    dequantized = indexpool.decode_f8e4m3fn(codes) * scales[:, None]
    # Within the FP8 rounding step: half an ulp of 3 mantissa bits (2^-4
    # relative), or half the subnormal step 2^-9 (in units of the scale),
    # plus the f32 pooling's own error.
    bound = (np.abs(pooled) * 2.0**-4 + scales[:, None] * 2.0**-10
             + 1e-5 * expected_scales[:, None] * 448.0)
    assert np.all(np.abs(dequantized - pooled) <= bound)
    # Not vacuous: the codes do carry the values.
    assert np.abs(dequantized).max() > 1.0


def test_reference_is_float64(rng, compress_text_module):
    keys, scores = compress_inputs(rng, 64, 64)
    codes, scales, weights = indexpool.reference(compress_text_module,
                                                 "compress", keys, scores)
    assert codes.dtype == np.float64 and codes.shape == (16, 64)
    pooled, expected_scales, expected_weights = numpy_compress_f8(keys, scores)
    np.testing.assert_allclose(scales, expected_scales, rtol=1e-6)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-6)


def test_verify_raises_out_of_tolerance(rng, compress_text_module,
                                        compress_text_function):
    keys, scores = compress_inputs(rng, 256, 64)
    codes, scales, weights = compress_text_function(keys, scores)
    scales = scales * 2
    with pytest.raises(indexpool.IndexPoolError, match="result #1"):
        indexpool.verify(compress_text_module, "compress", (keys, scores),
                         (codes, scales, weights))


@pytest.mark.parametrize("key_dtype,per_channel,bias,codes,pow2", [
    ("bf16", True, "channel", "f8E4M3FN", True),
    ("f16", False, "slot", "i8", False),
])
def test_compress_from_builder(rng, key_dtype, per_channel, bias, codes, pow2):
    module = indexpool.ops.compress((-1, 128), key_dtype, pool_size=4,
                                    rotate=True, per_channel_scores=per_channel,
                                    bias=bias, codes=codes, pow2_scale=pow2)
    function = indexpool.compile(module, threads=2)
    inputs = compress_inputs(rng, 512, 128, key_dtype, per_channel, bias)
    results = function(*inputs)
    assert results[0].dtype == indexpool.dtypes.numpy_dtype(codes)
    report = indexpool.verify(module, "compress", inputs, results)
    assert all(line.endswith("ok") for line in report)


def test_select_from_builder(rng):
    compress = indexpool.compile(indexpool.ops.compress((-1, 64), "f32"))
    keys, scores = compress_inputs(rng, 4096, 64)
    codes, scales = compress(keys, scores)
    module = indexpool.ops.select((2, 8, 64), "f32", k=16, valid=True)
    select = indexpool.compile(module)
    query = rng.standard_normal((2, 8, 64), dtype=np.float32)
    head_weights = rng.random((2, 8), dtype=np.float32) + 0.5
    valid = np.array([1024, 600], dtype=np.int32)
    inputs = (query, head_weights, codes, scales, valid)
    tokens = select(*inputs)
    assert tokens.dtype == np.int32 and tokens.shape == (2, 64)
    assert np.all(tokens[1] < 600 * 4) and np.all(tokens >= 0)
    indexpool.verify(module, "select", inputs, tokens)


@pytest.mark.parametrize("token_keys", ["bf16", "f8E4M3FN"])
def test_select_with_refine(rng, token_keys):
    """The two-stage selection: C * k pools, their tokens re-scored against
    the token keys, the best k * P kept; checked against the reference and,
    independently, as the best of select's C * k * P candidates by the
    exact logits."""
    compress = indexpool.compile(indexpool.ops.compress((-1, 64), "f32"))
    keys, scores = compress_inputs(rng, 2048, 64)
    codes, scales = compress(keys, scores)
    module = indexpool.ops.select((2, 8, 64), "f32", k=16, valid=True,
                                  refine=2, token_keys=token_keys)
    sig = module.signature("select")
    assert [str(t) for t in sig.arguments[5:]] == (
        ["tensor<?x64xbf16>"] if token_keys == "bf16" else
        ["tensor<?x64xf8E4M3FN>", "tensor<?xf32>"])
    if token_keys == "bf16":
        token_inputs = (indexpool.encode_bf16(keys),)
        exact_keys = indexpool.decode_bf16(token_inputs[0]).astype(np.float64)
    else:
        token_scales = (np.abs(keys).max(axis=1) / 448).astype(np.float32)
        token_codes = indexpool.encode_f8e4m3fn(keys / token_scales[:, None])
        token_inputs = (token_codes, token_scales)
        exact_keys = (indexpool.decode_f8e4m3fn(token_codes).astype(np.float64)
                      * token_scales[:, None])
    query = rng.standard_normal((2, 8, 64), dtype=np.float32)
    head_weights = rng.random((2, 8), dtype=np.float32) + 0.5
    valid = np.array([512, 300], dtype=np.int32)
    inputs = (query, head_weights, codes, scales, valid) + token_inputs
    tokens = indexpool.compile(module)(*inputs)
    assert tokens.shape == (2, 64) and np.all(tokens >= 0)
    assert np.all(tokens[1] < 300 * 4)
    assert len(set(tokens[0])) == 64
    indexpool.verify(module, "select", inputs, tokens)
    # The candidates: select alone with 2 * 16 pools.
    wide = indexpool.ops.select((2, 8, 64), "f32", k=32, valid=True)
    candidates = indexpool.compile(wide)(query, head_weights, codes, scales,
                                         valid)
    for m in range(2):
        assert set(tokens[m]) <= set(candidates[m])
        logits = np.maximum(np.einsum("hd,nd->hn", query[m].astype(np.float64),
                                      exact_keys[candidates[m]]), 0)
        logits = head_weights[m].astype(np.float64) @ logits
        chosen = np.isin(candidates[m], tokens[m])
        # Every kept candidate scores at least every dropped one (up to f32
        # rounding of the logits).
        slack = 1e-4 * np.abs(logits).max()
        assert logits[chosen].min() >= logits[~chosen].max() - slack


def test_out_writes_in_place_and_inputs_are_not_copied(
        rng, compress_text_function):
    function = compress_text_function
    keys, scores = compress_inputs(rng, 256, 64)
    address = keys.ctypes.data
    shapes = function.result_shapes(keys, scores)
    assert shapes == [(64, 64), (64,), (64, 4)]
    out = tuple(np.full(s, 7, dtype=indexpool.dtypes.numpy_dtype(r.dtype))
                for s, r in zip(shapes, function.signature.results))
    addresses = [o.ctypes.data for o in out]
    returned = function(keys, scores, out=out)
    assert returned is out
    assert [o.ctypes.data for o in out] == addresses
    expected = function(keys, scores)
    for o, e in zip(out, expected):
        np.testing.assert_array_equal(o, e)
    assert keys.ctypes.data == address

    # A view into a bigger caller array: the results land there.
    big = np.zeros((2, 64), dtype=np.float32)
    codes = np.empty((64, 64), np.uint8)
    weights = np.empty((64, 4), np.float32)
    function(keys, scores, out=[codes, big[1], weights])
    np.testing.assert_array_equal(big[1], expected[1])
    assert not big[0].any()

    # The inputs are read where they are: a change shows in the next call.
    # (Doubling group 0's keys doubles its scale; its codes stay.)
    keys[:4] *= 2
    assert function(keys, scores)[1][0] == 2 * expected[1][0]


def test_dynamic_sizes_reuse_the_compiled_function(rng,
                                                   compress_text_function):
    for tokens in (8, 1000, 4096, 12):
        keys, scores = compress_inputs(rng, tokens, 64)
        codes, scales, _ = compress_text_function(keys, scores)
        assert codes.shape == (tokens // 4, 64)
        assert scales.shape == (tokens // 4,)


def test_dlpack_capsules_and_objects(rng, compress_text_function):
    keys, scores = compress_inputs(rng, 64, 64)
    expected = compress_text_function(keys, scores)

    class OnlyDLPack:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__()

    results = compress_text_function(OnlyDLPack(keys), scores.__dlpack__())
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(r, e)
