"""Builders: the functions serving engines need most, from a few parameters.

Each returns a Module holding one function (print it with str(module) to see
or edit its IR). A size of -1 (or None) is dynamic: one compiled function
then serves every size. The defaults are those of the C++ builders
(include/indexpool/API/Builders.h).
"""

from . import _indexpool, dtypes


def _size(size):
    return -1 if size is None else int(size)


def compress(keys_shape, dtype="bf16", pool_size=4, rotate=True, *,
             per_channel_scores=False, bias=None, temperature=1.0,
             codes="f8E4M3FN", pow2_scale=False, name="compress"):
    """@compress(keys [T, D], scores [T] or [T, D] f32, [bias]) ->
    (codes [T/P, D], scales [T/P] f32): pool -> [hadamard] -> quantize.

    keys_shape: (T, D), T -1/None for any number of tokens. dtype: the
    keys' type (f32, f16 or bf16). bias: None, "slot" ([P] or [P, D] added
    to the scores) or "channel" ([P, D]). codes: "f8E4M3FN" or "i8".
    """
    tokens, dim = keys_shape
    return _indexpool.build_compress(
        tokens=_size(tokens), dim=int(dim), key_type=dtypes.code(dtype),
        pool_size=pool_size, per_channel_scores=per_channel_scores,
        bias=bias or "none", temperature=temperature, rotate=rotate,
        code_type=dtypes.code(codes), pow2_scale=pow2_scale, name=name)


def select(query_shape, dtype="bf16", pools=-1, k=512, pool_size=4,
           rotate=True, *, codes="f8E4M3FN", valid=False, name="select"):
    """@select(query [M, H, D], head_weights [M, H] f32, codes [N, D],
    scales [N] f32, [valid [M] i32]) -> tokens [M, k * P] i32.

    query_shape: (M, H, D); dtype: the query's type; pools: N (-1/None:
    any). codes: "f8E4M3FN" or "i8" (with scales), or f32/f16/bf16 (without
    scales). rotate: rotate the query as compress rotated the keys.
    """
    queries, heads, dim = query_shape
    return _indexpool.build_select(
        queries=int(queries), heads=int(heads), dim=int(dim),
        pools=_size(pools), query_type=dtypes.code(dtype),
        code_type=dtypes.code(codes), k=k, pool_size=pool_size,
        rotate=rotate, valid=valid, name=name)
