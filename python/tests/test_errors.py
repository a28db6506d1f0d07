"""Bad inputs raise TypeError / ValueError / IndexPoolError with a message
naming the argument, before any compiled code runs."""

import numpy as np
import pytest

import indexpool
from conftest import compress_inputs


def test_wrong_dtype(rng, compress_text_function):
    keys, scores = compress_inputs(rng, 64, 64)
    with pytest.raises(TypeError, match=r"argument #0 of @compress "
                       r"\(tensor<\?x64xf32>\): expected a NumPy array of "
                       r"float32, got float64"):
        compress_text_function(keys.astype(np.float64), scores)
    with pytest.raises(TypeError, match="argument #1"):
        compress_text_function(keys, scores.astype(np.float16))
    with pytest.raises(TypeError, match="expected a NumPy array, a torch "
                       "tensor or a DLPack tensor, got <class 'list'>"):
        compress_text_function(keys, scores.tolist())


def test_wrong_rank_and_sizes(rng, compress_text_function):
    keys, scores = compress_inputs(rng, 64, 64)
    with pytest.raises(indexpool.IndexPoolError, match=r"input #0 \(keys\) is "
                       r"\[64, 8, 8\], expected tensor<\?x64xf32>"):
        compress_text_function(keys.reshape(64, 8, 8), scores)
    with pytest.raises(indexpool.IndexPoolError, match="64"):
        compress_text_function(keys[:, :32].copy(), scores)
    with pytest.raises(indexpool.IndexPoolError):
        compress_text_function(keys, scores[:60].copy())


def test_non_contiguous_and_read_only(rng, compress_text_function):
    keys, scores = compress_inputs(rng, 128, 64)
    with pytest.raises(ValueError, match="argument #0 .*not C-contiguous"):
        compress_text_function(keys[::2], scores[:64].copy())
    with pytest.raises(ValueError, match="not C-contiguous"):
        compress_text_function(np.asfortranarray(keys), scores)
    out = [np.empty(s, dtype=indexpool.dtypes.numpy_dtype(r.dtype))
           for s, r in zip(compress_text_function.result_shapes(keys, scores),
                           compress_text_function.signature.results)]
    out[1].flags.writeable = False
    with pytest.raises(ValueError, match="output #1 .*read-only"):
        compress_text_function(keys, scores, out=out)


def test_wrong_count(rng, compress_text_function):
    keys, scores = compress_inputs(rng, 64, 64)
    with pytest.raises(TypeError, match=r"@compress takes 2 arguments "
                       r"\(tensor<\?x64xf32>, tensor<\?xf32>\), got 1"):
        compress_text_function(keys)
    with pytest.raises(TypeError, match="takes 3 outputs"):
        compress_text_function(keys, scores, out=np.empty((16, 64), np.uint8))


def test_out_of_wrong_shape(rng, compress_text_function):
    keys, scores = compress_inputs(rng, 64, 64)
    out = (np.empty((15, 64), np.uint8), np.empty(16, np.float32),
           np.empty((16, 4), np.float32))
    with pytest.raises(indexpool.IndexPoolError):
        compress_text_function(keys, scores, out=out)
