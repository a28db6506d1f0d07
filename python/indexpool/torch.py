"""IndexPool's ops as PyTorch custom ops (torch.library).

Importing this module defines

    torch.ops.indexpool.compress(Tensor keys, Tensor scores, Tensor? bias=None,
        int pool_size=4, bool rotate=True, str codes="f8E4M3FN",
        bool pow2_scale=False, float temperature=1.0) -> (Tensor, Tensor)
    torch.ops.indexpool.select(Tensor query, Tensor head_weights,
        Tensor codes, Tensor? scales, Tensor? valid, int k, int pool_size=4,
        bool rotate=True) -> Tensor

with ops.compress and ops.select (include/indexpool/API/Builders.h) as
their semantics. compress returns the codes [T/P, D] (torch.uint8 FP8
E4M3FN codes, or torch.int8) and the f32 scales [T/P]; select returns the
token indices [M, k * P] (torch.int32, -1 where fewer than k pools
qualify). scores and bias ([P] with scores [T], [P, D] with scores [T, D]),
head_weights and valid are converted to float32 / int32 (a copy when they
are not); non-contiguous tensors are made contiguous.

CPU tensors run through the JIT: each function is compiled once per
(op, options, element types, static sizes), with the token / pool count
dynamic, so that a growing cache does not recompile. CUDA tensors raise an
error: the Python package has no GPU API yet (compile_gpu writes the
kernels and manifest a runtime launches). The paged ops have no builders
yet and so no torch ops.
"""

import threading

import torch

from . import compile as _compile, dtypes, ops

#: Options of indexpool.compile for the ops' functions (threads,
#: vector_width, ...); part of the cache key, so a change compiles anew.
compile_options = {}

_cache = {}
_cache_lock = threading.Lock()


def _function(key, build):
    key += tuple(sorted(compile_options.items()))
    function = _cache.get(key)
    if function is None:
        with _cache_lock:
            function = _cache.get(key)
            if function is None:
                function = _compile(build(), **compile_options)
                _cache[key] = function
    return function


def _as(tensor, dtype):
    return tensor.to(dtype).contiguous()


def _compress(keys, scores, bias=None, pool_size=4, rotate=True,
              codes="f8E4M3FN", pow2_scale=False, temperature=1.0):
    if keys.dim() != 2:
        raise ValueError(f"indexpool.compress: keys must be [T, D], got "
                         f"{list(keys.shape)}")
    per_channel = scores.dim() == 2
    key_type = dtypes.name(keys.dtype)
    bias_kind = None if bias is None else (
        "channel" if bias.dim() == 2 else "slot")
    key = ("compress", keys.shape[1], key_type, pool_size, per_channel,
           bias_kind, float(temperature), rotate, codes, pow2_scale)
    function = _function(key, lambda: ops.compress(
        (-1, keys.shape[1]), key_type, pool_size, rotate,
        per_channel_scores=per_channel, bias=bias_kind,
        temperature=temperature, codes=codes, pow2_scale=pow2_scale))
    inputs = [keys.contiguous(), _as(scores, torch.float32)]
    if bias is not None:
        inputs.append(_as(bias, torch.float32))
    results = function(*inputs)
    return results[0], results[1]


def _select(query, head_weights, codes, scales, valid, k, pool_size=4,
            rotate=True):
    if query.dim() != 3:
        raise ValueError(f"indexpool.select: query must be [M, H, D], got "
                         f"{list(query.shape)}")
    queries, heads, dim = query.shape
    query_type = dtypes.name(query.dtype)
    code_type = dtypes.name(codes.dtype)
    key = ("select", queries, heads, dim, query_type, code_type, k,
           pool_size, rotate, valid is not None)
    function = _function(key, lambda: ops.select(
        (queries, heads, dim), query_type, -1, k, pool_size, rotate,
        codes=code_type, valid=valid is not None))
    inputs = [query.contiguous(), _as(head_weights, torch.float32),
              codes.contiguous()]
    if scales is not None:
        inputs.append(_as(scales, torch.float32))
    if valid is not None:
        inputs.append(_as(valid, torch.int32))
    return function(*inputs)


def _no_cuda(name):
    def fail(*args, **kwargs):
        raise RuntimeError(
            f"indexpool.{name}: CUDA tensors are not supported yet: the "
            "Python package runs CPU functions only (indexpool.compile_gpu "
            "writes the kernels and manifest for the runtime); move the "
            "tensors to the CPU")
    return fail


_SCHEMAS = {
    "compress": ("compress(Tensor keys, Tensor scores, Tensor? bias=None, "
                 "int pool_size=4, bool rotate=True, "
                 "str codes=\"f8E4M3FN\", bool pow2_scale=False, "
                 "float temperature=1.0) -> (Tensor codes, Tensor scales)",
                 _compress),
    "select": ("select(Tensor query, Tensor head_weights, Tensor codes, "
               "Tensor? scales, Tensor? valid, int k, int pool_size=4, "
               "bool rotate=True) -> Tensor tokens", _select),
}

# One definition per process, also when this module is imported again.
if not hasattr(torch.ops.indexpool, "_indexpool_library"):
    _library = torch.library.Library("indexpool", "DEF")
    for _name, (_schema, _impl) in _SCHEMAS.items():
        _library.define(_schema)
        _library.impl(_name, _impl, "CPU")
        _library.impl(_name, _no_cuda(_name), "CUDA")
    torch.ops.indexpool._indexpool_library = _library

compress = torch.ops.indexpool.compress
select = torch.ops.indexpool.select


def compiled_functions():
    """The functions compiled so far, by their cache key (for tests)."""
    return dict(_cache)
