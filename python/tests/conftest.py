"""Shared inputs of the indexpool tests: fresh random values (never zeros)
from a seeded generator."""

import numpy as np
import pytest

import indexpool

# compress of f32 keys with per-token scores, unrotated: simple enough for
# the independent NumPy check in test_numpy.py. Any number of tokens.
COMPRESS_IR = """
func.func @compress(%keys: tensor<?x64xf32>, %scores: tensor<?xf32>)
    -> (tensor<?x64xf8E4M3FN>, tensor<?xf32>, tensor<?x4xf32>) {
  %codes, %scales, %weights = indexpool.compress %keys, %scores
      {pool_size = 4 : i64}
      : (tensor<?x64xf32>, tensor<?xf32>)
        -> (tensor<?x64xf8E4M3FN>, tensor<?xf32>, tensor<?x4xf32>)
  return %codes, %scales, %weights
      : tensor<?x64xf8E4M3FN>, tensor<?xf32>, tensor<?x4xf32>
}
"""


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


@pytest.fixture(scope="session")
def compress_text_module():
    return indexpool.parse(COMPRESS_IR, "compress.mlir")


@pytest.fixture(scope="session")
def compress_text_function(compress_text_module):
    return indexpool.compile(compress_text_module, threads=1)


def compress_inputs(rng, tokens, dim, key_dtype="f32", per_channel=False,
                    bias=None, pool_size=4):
    """keys (in their storage format), scores [, bias], all random."""
    keys = rng.standard_normal((tokens, dim), dtype=np.float32)
    if key_dtype == "bf16":
        keys = indexpool.encode_bf16(keys)
    elif key_dtype == "f16":
        keys = keys.astype(np.float16)
    scores_shape = (tokens, dim) if per_channel else (tokens,)
    inputs = [keys, rng.standard_normal(scores_shape, dtype=np.float32)]
    if bias == "slot":
        inputs.append(rng.standard_normal((pool_size,), dtype=np.float32))
    elif bias == "channel":
        inputs.append(rng.standard_normal((pool_size, dim), dtype=np.float32))
    return inputs
