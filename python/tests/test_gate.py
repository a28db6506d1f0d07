"""indexpool.gate_scores: the query-aware gate's pooling scores (the pool op
reference, docs/IndexPoolOps.md), checked against float64 on fresh random
keys, then used as compress's scores: with a gate along the direction the
queries favour, the pooled key leans to its group's best-aligned token."""

import numpy as np
import pytest

import indexpool

D, T, P = 64, 256, 4


@pytest.fixture
def rng():
    return np.random.default_rng(20261205)


def test_gate_scores_match_float64(rng):
    keys = rng.standard_normal((3, T, D)).astype(np.float32)
    gate = rng.standard_normal(D).astype(np.float32)
    scores = indexpool.gate_scores(keys, gate)
    assert scores.shape == (3, T) and scores.dtype == np.float32
    exact = keys.astype(np.float64) @ gate.astype(np.float64)
    # An f32 dot product of D terms: relative error <= D u of sum |k_i g_i|.
    bound = D * np.finfo(np.float32).eps * (np.abs(keys) @ np.abs(gate))
    assert (np.abs(scores - exact) <= bound).all()


def test_gate_scores_from_torch_equal_numpy(rng):
    torch = pytest.importorskip("torch")
    keys = rng.standard_normal((T, D)).astype(np.float32)
    gate = rng.standard_normal(D).astype(np.float32)
    from_torch = indexpool.gate_scores(torch.from_numpy(keys), gate)
    assert isinstance(from_torch, torch.Tensor)
    assert np.allclose(from_torch.numpy(), indexpool.gate_scores(keys, gate),
                       rtol=1e-6, atol=1e-5)


def test_gate_scores_refuses_bad_shapes_and_bit_patterns(rng):
    keys = rng.standard_normal((T, D)).astype(np.float32)
    with pytest.raises(ValueError, match=r"gate must be \[D\].*\[32\]"):
        indexpool.gate_scores(keys, np.ones(32, np.float32))
    with pytest.raises(TypeError, match="decode_bf16"):
        indexpool.gate_scores(indexpool.encode_bf16(keys),
                              np.ones(D, np.float32))


def test_gated_pooling_leans_to_the_favoured_token(rng):
    """compress with gate scores (g = 4 x a unit direction u): each pooled
    key is closer to u than with uniform scores whenever its group's tokens
    differ along u, as the softmax weights follow g . k."""
    u = rng.standard_normal(D)
    u /= np.linalg.norm(u)
    keys = rng.standard_normal((T, D)).astype(np.float32)
    gate = (4.0 * u).astype(np.float32)
    module = indexpool.ops.compress((-1, D), "f32", pool_size=P, rotate=False,
                                    codes="i8")
    function = indexpool.compile(module)
    gated = function(keys, indexpool.gate_scores(keys, gate))
    uniform = function(keys, np.zeros(T, np.float32))
    indexpool.verify(module, "compress", (keys,
                     indexpool.gate_scores(keys, gate)), gated)

    def along_u(result):
        codes, scales = result[0], result[1]
        return (codes.astype(np.float64) * scales.reshape(-1, 1)) @ u

    assert (along_u(gated) > along_u(uniform)).mean() > 0.95
