"""torch tensors through compiled functions, and torch.ops.indexpool.*."""

import numpy as np
import pytest

import indexpool
from conftest import compress_inputs

torch = pytest.importorskip("torch")
import indexpool.torch  # noqa: E402  (defines torch.ops.indexpool)


def bf16_tensor(bits):
    return torch.from_numpy(bits.view(np.int16)).view(torch.bfloat16)


def test_function_takes_and_returns_tensors(rng, compress_text_function):
    keys, scores = compress_inputs(rng, 512, 64)
    expected = compress_text_function(keys, scores)
    keys_t, scores_t = torch.from_numpy(keys), torch.from_numpy(scores)
    results = compress_text_function(keys_t, scores_t)
    assert all(isinstance(r, torch.Tensor) for r in results)
    assert results[0].dtype == torch.uint8
    for r, e in zip(results, expected):
        np.testing.assert_array_equal(r.numpy(), e)

    # out= with tensors lands in them.
    out = (torch.empty((128, 64), dtype=torch.uint8), torch.empty(128),
           torch.empty((128, 4)))
    pointers = [o.data_ptr() for o in out]
    assert compress_text_function(keys_t, scores_t, out=out) is out
    assert [o.data_ptr() for o in out] == pointers
    np.testing.assert_array_equal(out[1].numpy(), expected[1])

    # A torch DLPack capsule works as well.
    from torch.utils.dlpack import to_dlpack
    results = compress_text_function(to_dlpack(keys_t), scores)
    np.testing.assert_array_equal(results[0], expected[0])
    # Empty (0 x D) tensors, whatever strides torch gives them.
    empty = torch.empty((0, 64), dtype=torch.float32)
    for keys_empty in (empty, empty.t().contiguous().t()[:0]):
        results = compress_text_function(
            to_dlpack(keys_empty), to_dlpack(torch.empty(0)))
        assert results[0].shape == (0, 64) and results[1].shape == (0,)


def test_tensor_errors(rng, compress_text_function):
    keys, scores = (torch.from_numpy(a) for a in compress_inputs(rng, 64, 64))
    with pytest.raises(TypeError, match=r"argument #0 .*expected a tensor of "
                       r"torch.float32, got torch.float64"):
        compress_text_function(keys.double(), scores)
    with pytest.raises(ValueError, match="argument #0 .*the tensor is not "
                       "contiguous"):
        compress_text_function(keys.t(), scores)
    with pytest.raises(ValueError, match="argument #0 .*a sparse_coo tensor"):
        compress_text_function(keys.to_sparse(), scores)
    # A tuple is never read as an address (it once was: any 4-tuple).
    for forged in ((0x1000, 0, (64, 64), torch.float32),
                   (keys.data_ptr(), 0, (1 << 40, 64), torch.float32)):
        with pytest.raises(TypeError, match="argument #0 .*expected a NumPy "
                           "array, a torch tensor or a DLPack tensor, got "
                           ".*tuple"):
            compress_text_function(forged, scores)
    with pytest.raises(ValueError, match="meta tensor"):
        compress_text_function(keys.to("meta"), scores)
    # The ops run on CPU and CUDA tensors (test_gpu.py), nothing else.
    with pytest.raises(ValueError, match="meta tensors are not supported"):
        indexpool.torch._compress(keys.to("meta"), scores.to("meta"))


def test_compress_op_equals_numpy_path(rng):
    tokens, dim = 1024, 128
    keys, scores, bias = compress_inputs(rng, tokens, dim, "bf16", True,
                                         "channel")
    module = indexpool.ops.compress((-1, dim), "bf16", pool_size=4,
                                    rotate=True, per_channel_scores=True,
                                    bias="channel", pow2_scale=True)
    codes, scales = indexpool.compile(module)(keys, scores, bias)
    indexpool.verify(module, "compress", (keys, scores, bias), (codes, scales))

    codes_t, scales_t = torch.ops.indexpool.compress(
        bf16_tensor(keys), torch.from_numpy(scores), torch.from_numpy(bias),
        4, True, "f8E4M3FN", True)
    assert codes_t.dtype == torch.uint8 and scales_t.dtype == torch.float32
    np.testing.assert_array_equal(codes_t.numpy(), codes)
    np.testing.assert_array_equal(scales_t.numpy(), scales)


def test_compress_op_compiles_once_for_every_length(rng):
    before = len(indexpool.torch.compiled_functions())
    for tokens in (64, 256, 1000):
        keys, scores = compress_inputs(rng, tokens, 64)
        codes, scales = indexpool.torch.compress(
            torch.from_numpy(keys), torch.from_numpy(scores), rotate=False,
            codes="i8")
        assert codes.dtype == torch.int8 and codes.shape == (tokens // 4, 64)
    assert len(indexpool.torch.compiled_functions()) == before + 1


def test_select_op_equals_numpy_path(rng):
    keys, scores = compress_inputs(rng, 2048, 128, "bf16")
    codes, scales = torch.ops.indexpool.compress(
        bf16_tensor(keys), torch.from_numpy(scores))
    query = torch.randn(1, 16, 128, generator=torch.Generator().manual_seed(3))
    query = query.to(torch.bfloat16)
    head_weights = torch.rand(1, 16, generator=torch.Generator().manual_seed(4))
    valid = torch.tensor([400], dtype=torch.int32)

    tokens = torch.ops.indexpool.select(query, head_weights, codes, scales,
                                        valid, 32)
    assert tokens.dtype == torch.int32 and tokens.shape == (1, 128)

    module = indexpool.ops.select((1, 16, 128), "bf16", k=32, valid=True)
    inputs = (query.view(torch.int16).numpy().view(np.uint16),
              head_weights.numpy(), codes.numpy(), scales.numpy(),
              valid.numpy())
    expected = indexpool.compile(module)(*inputs)
    np.testing.assert_array_equal(tokens.numpy(), expected)
    indexpool.verify(module, "select", inputs, expected)
    assert tokens.max().item() < 400 * 4
