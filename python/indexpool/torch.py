"""IndexPool's ops as PyTorch custom ops (torch.library).

Importing this module defines

    torch.ops.indexpool.compress(Tensor keys, Tensor scores, Tensor? bias=None,
        int pool_size=4, bool rotate=True, str codes="f8E4M3FN",
        bool pow2_scale=False, float temperature=1.0) -> (Tensor, Tensor)
    torch.ops.indexpool.select(Tensor query, Tensor head_weights,
        Tensor codes, Tensor? scales, Tensor? valid, int k, int pool_size=4,
        bool rotate=True) -> Tensor

and the paged forms (docs/serving-layout.md)

    torch.ops.indexpool.compress_paged(Tensor keys, Tensor scores,
        Tensor? bias, Tensor(a!) pages, Tensor slots, int pool_size=4,
        bool rotate=True, str codes="f8E4M3FN", bool pow2_scale=False,
        float temperature=1.0, int page_entries=64,
        bool scales_first=False) -> Tensor(a!)
    torch.ops.indexpool.select_paged(Tensor query, Tensor head_weights,
        Tensor pages, Tensor block_table, Tensor lengths, int k,
        int pool_size=4, bool rotate=True, str codes="f8E4M3FN",
        int page_entries=64, bool scales_first=False) -> Tensor
    torch.ops.indexpool.append_paged(Tensor keys, Tensor scores,
        Tensor? bias, Tensor(b!) tail_keys, Tensor(c!) tail_scores,
        Tensor lengths, Tensor(a!) pages, Tensor block_table,
        int pool_size=4, bool rotate=True, str codes="f8E4M3FN",
        bool pow2_scale=False, float temperature=1.0, int page_entries=64,
        bool scales_first=False) -> (Tensor(a!), Tensor(b!), Tensor(c!))
    torch.ops.indexpool.refine_paged(Tensor query, Tensor head_weights,
        Tensor candidates, Tensor pages, Tensor block_table, Tensor lengths,
        int k, bool rotate=True, str codes="f8E4M3FN", int page_entries=256,
        bool scales_first=False) -> Tensor

(pool_size=1 writes and reads a token tier: one entry per token, the
second stage of a two-stage selection that refine_paged re-scores)
with ops.compress, ops.select and ops.*_paged
(include/indexpool/API/Builders.h) as their semantics. compress returns
the codes [T/P, D] (torch.uint8 FP8 E4M3FN codes, or torch.int8) and the f32 scales [T/P]; select returns the
token indices [M, k * P] (torch.int32, -1 where fewer than k pools
qualify). scores and bias ([P] with scores [T], [P, D] with scores [T, D]),
head_weights and valid are converted to float32 / int32 (a copy when they
are not); non-contiguous tensors are made contiguous.

Meta tensors (torch.fx, fake tensors, tracing) get the outputs' shapes and
dtypes without running anything. CPU tensors run through the JIT, CUDA
tensors through the runtime
(indexpool.gpu): each function is compiled once per (op, options, element
types, static sizes, device), with the token / pool count dynamic, so that
a growing cache does not recompile. On a CUDA device it is compiled for
the device's chip (as the driver reports it, e.g. sm_90), loaded there,
and its kernels are queued on torch's current stream of that device, with
no synchronization, as torch's own CUDA ops are; outputs are allocated by
torch on the inputs' device.

The paged ops update a serving engine's cache where it is: compress_paged
and append_paged write the pages tensor passed in (and append_paged its
tails) in place, through the compiled code itself (the functions are
compiled with those arguments in place: no copy, no allocation per call),
and return those same tensors. Their schemas say so (Tensor(a!): mutated
and aliased by the result, as torch's own in-place ops are), so that what
traces or functionalizes a program knows about the writes. The pages are int8
(uint8 is taken as a view of the same bytes) [pages, page_entries *
(D + 4)]; they, the tail keys (the keys' dtype) and the tail scores
(float32) must be contiguous, of those types, on the keys' device: a copy
would hide the update, so anything else is an error. block_table and lengths
are converted to int32, slots to int64. Batch, rows, new tokens, pages and
the block table's width are dynamic: one compilation serves them all.
"""

import threading

import torch

from . import compile as _compile
from . import compile_gpu, dtypes, gpu, ops

#: Options of indexpool.compile for the ops' CPU functions (threads,
#: vector_width, ...); part of the cache key, so a change compiles anew.
compile_options = {}
#: Options of indexpool.compile_gpu for the CUDA functions (tuning_db,
#: binary_format, fuse); part of the cache key too.
gpu_compile_options = {}

_cache = {}
_cache_lock = threading.Lock()


def _function(tensor, builder, *args, in_place=(), **options):
    """The function of the module `builder(*args, **options)` (an
    indexpool.ops builder) for `tensor`'s device, compiled once per call of
    the builder and device: for the CPU with arguments `in_place` updated
    where they are; for a CUDA device for its chip, loaded onto it. The
    cache key is the builder's whole call, so no option of the module can
    be left out of it (a hand-kept key once lost `k`: select(k=32) reused
    the function of k=16)."""
    key = (builder.__name__, args, tuple(sorted(options.items())), in_place)
    device, index = tensor.device, None
    if device.type == "cpu":
        key += tuple(sorted(compile_options.items()))
    elif device.type == "cuda":
        index = torch.cuda.current_device() if device.index is None \
            else device.index
        key += ("cuda", index) + tuple(sorted(gpu_compile_options.items()))
    else:
        raise ValueError(f"indexpool: {device.type} tensors are not "
                         "supported (CPU and CUDA are)")
    function = _cache.get(key)
    if function is None:
        with _cache_lock:
            function = _cache.get(key)
            if function is None:
                module = builder(*args, **options)
                if device.type == "cuda":
                    function = _compile_for_device(module, index)
                elif in_place:
                    function = _compile_in_place(module, in_place)
                else:
                    function = _compile(module, **compile_options)
                _cache[key] = function
    return function


def _compile_for_device(module, index):
    """`module` compiled for the chip of CUDA device `index` and loaded
    there (the kernels queue on torch's current stream at each call)."""
    device = gpu.device(index)
    binary = compile_gpu(module, chip=device.chip, **gpu_compile_options)
    return gpu.load(binary, device)


def _as(tensor, dtype):
    return tensor.to(dtype).contiguous()


def _as_index(tensor, dtype, what, op):
    """An index operand (block tables, lengths, candidates, valid, slots)
    as `dtype`: integers only, and every value must fit (int64, torch's
    default, narrowed to int32 silently read page 2^32 + 1 as page 1)."""
    if tensor.dtype.is_floating_point or tensor.dtype.is_complex or \
            tensor.dtype == torch.bool:
        raise TypeError(f"indexpool.{op}: {what} must be an integer tensor, "
                        f"got {tensor.dtype}")
    info = torch.iinfo(dtype)
    if tensor.numel() and tensor.dtype != dtype and not tensor.is_meta:
        low, high = int(tensor.min()), int(tensor.max())
        if low < info.min or high > info.max:
            bad = low if low < info.min else high
            raise ValueError(f"indexpool.{op}: {what} holds {bad}, outside "
                             f"{str(dtype).replace('torch.', '')} "
                             f"[{info.min}, {info.max}]")
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
    function = _function(
        keys, ops.compress, (-1, keys.shape[1]), key_type, pool_size, rotate,
        per_channel_scores=per_channel, bias=bias_kind,
        temperature=float(temperature), codes=codes, pow2_scale=pow2_scale)
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
    function = _function(
        query, ops.select, (queries, heads, dim), query_type, -1, k,
        pool_size, rotate, codes=code_type, valid=valid is not None)
    inputs = [query.contiguous(), _as(head_weights, torch.float32),
              codes.contiguous()]
    if scales is not None:
        inputs.append(_as(scales, torch.float32))
    if valid is not None:
        inputs.append(_as_index(valid, torch.int32, "valid", "select"))
    return function(*inputs)


def _compile_in_place(module, in_place):
    """compile(module) with the arguments `in_place` updated where they are
    (the results that are their new values are the caller's buffers)."""
    return _compile(module, in_place=in_place, **compile_options)


def _updated(tensor, dtype, what, op, device):
    """`tensor` as the call writes it: no conversion, no copy."""
    if dtype == torch.int8 and tensor.dtype == torch.uint8:
        tensor = tensor.view(torch.int8)
    if tensor.dtype != dtype:
        raise TypeError(f"indexpool.{op}: {what} must be {dtype} (it is "
                        f"updated in place), got {tensor.dtype}")
    if tensor.device != device:
        raise ValueError(f"indexpool.{op}: {what} is on {tensor.device}, "
                         f"the keys on {device} (it is updated in place, "
                         "where it is)")
    if not tensor.is_contiguous():
        raise ValueError(f"indexpool.{op}: {what} must be contiguous (it is "
                         "updated in place)")
    return tensor


def _compress_paged(keys, scores, bias, pages, slots, pool_size=4,
                    rotate=True, codes="f8E4M3FN", pow2_scale=False,
                    temperature=1.0, page_entries=64, scales_first=False):
    op = "compress_paged"
    if keys.dim() != 2:
        raise ValueError(f"indexpool.{op}: keys must be [T, D], got "
                         f"{list(keys.shape)}")
    cache = _updated(pages, torch.int8, "pages", op, keys.device)
    per_channel = scores.dim() == 2
    key_type = dtypes.name(keys.dtype)
    bias_kind = None if bias is None else (
        "channel" if bias.dim() == 2 else "slot")
    inputs = [keys.contiguous(), _as(scores, torch.float32)]
    if bias is not None:
        inputs.append(_as(bias, torch.float32))
    pages_index = len(inputs)
    function = _function(
        keys, ops.compress_paged, (-1, keys.shape[1]), key_type, pool_size,
        rotate, in_place=(pages_index,), codes=codes,
        page_entries=page_entries, scales_first=scales_first,
        per_channel_scores=per_channel, bias=bias_kind,
        temperature=float(temperature), pow2_scale=pow2_scale)
    inputs += [cache, _as_index(slots, torch.int64, "slots", op)]
    function(*inputs, out=(cache,))
    return pages


def _paged_query(op, query, pages):
    """(H, D, the query's element type name, the pages as int8) of a paged
    selection's [B, S, H, D] query; one error for any other rank."""
    if query.dim() != 4:
        raise ValueError(f"indexpool.{op}: query must be [B, S, H, D], got "
                         f"{list(query.shape)}")
    if pages.dtype == torch.uint8:
        pages = pages.view(torch.int8)
    return query.shape[2], query.shape[3], dtypes.name(query.dtype), pages


def _select_paged(query, head_weights, pages, block_table, lengths, k,
                  pool_size=4, rotate=True, codes="f8E4M3FN", page_entries=64,
                  scales_first=False):
    op = "select_paged"
    heads, dim, query_type, pages = _paged_query(op, query, pages)
    function = _function(
        query, ops.select_paged, (-1, -1, heads, dim), query_type, k,
        pool_size, rotate, codes=codes, page_entries=page_entries,
        scales_first=scales_first)
    return function(query.contiguous(), _as(head_weights, torch.float32),
                    pages.contiguous(),
                    _as_index(block_table, torch.int32, "block_table", op),
                    _as_index(lengths, torch.int32, "lengths", op))


def _refine_paged(query, head_weights, candidates, pages, block_table,
                  lengths, k, rotate=True, codes="f8E4M3FN", page_entries=256,
                  scales_first=False):
    op = "refine_paged"
    heads, dim, query_type, pages = _paged_query(op, query, pages)
    function = _function(
        query, ops.refine_paged, (-1, -1, heads, dim), query_type, k, rotate,
        codes=codes, page_entries=page_entries, scales_first=scales_first)
    return function(query.contiguous(), _as(head_weights, torch.float32),
                    _as_index(candidates, torch.int32, "candidates", op),
                    pages.contiguous(),
                    _as_index(block_table, torch.int32, "block_table", op),
                    _as_index(lengths, torch.int32, "lengths", op))


def _append_paged(keys, scores, bias, tail_keys, tail_scores, lengths, pages,
                  block_table, pool_size=4, rotate=True, codes="f8E4M3FN",
                  pow2_scale=False, temperature=1.0, page_entries=64,
                  scales_first=False):
    op = "append_paged"
    if keys.dim() != 3:
        raise ValueError(f"indexpool.{op}: keys must be [B, n, D], got "
                         f"{list(keys.shape)}")
    cache = _updated(pages, torch.int8, "pages", op, keys.device)
    tail_k = _updated(tail_keys, keys.dtype, "tail_keys", op, keys.device)
    tail_s = _updated(tail_scores, torch.float32, "tail_scores", op,
                      keys.device)
    per_channel = scores.dim() == 3
    key_type = dtypes.name(keys.dtype)
    bias_kind = None if bias is None else (
        "channel" if bias.dim() == 2 else "slot")
    inputs = [keys.contiguous(), _as(scores, torch.float32)]
    if bias is not None:
        inputs.append(_as(bias, torch.float32))
    tails = len(inputs)
    # tail_keys, tail_scores, lengths, pages, block_table.
    in_place = (tails + 3, tails, tails + 1)
    function = _function(
        keys, ops.append_paged, (-1, -1, keys.shape[2]), key_type, pool_size,
        rotate, in_place=in_place, codes=codes, page_entries=page_entries,
        scales_first=scales_first, per_channel_scores=per_channel,
        bias=bias_kind, temperature=float(temperature),
        pow2_scale=pow2_scale)
    inputs += [tail_k, tail_s, _as_index(lengths, torch.int32, "lengths", op),
               cache, _as_index(block_table, torch.int32, "block_table", op)]
    function(*inputs, out=(cache, tail_k, tail_s))
    return pages, tail_keys, tail_scores


_SCHEMAS = {
    "compress": ("compress(Tensor keys, Tensor scores, Tensor? bias=None, "
                 "int pool_size=4, bool rotate=True, "
                 "str codes=\"f8E4M3FN\", bool pow2_scale=False, "
                 "float temperature=1.0) -> (Tensor codes, Tensor scales)",
                 _compress),
    "select": ("select(Tensor query, Tensor head_weights, Tensor codes, "
               "Tensor? scales, Tensor? valid, int k, int pool_size=4, "
               "bool rotate=True) -> Tensor tokens", _select),
    # The pages (and tails) are written in place and returned: Tensor(a!).
    "compress_paged": (
        "compress_paged(Tensor keys, Tensor scores, Tensor? bias, "
        "Tensor(a!) pages, Tensor slots, int pool_size=4, bool rotate=True, "
        "str codes=\"f8E4M3FN\", bool pow2_scale=False, "
        "float temperature=1.0, int page_entries=64, "
        "bool scales_first=False) -> Tensor(a!)", _compress_paged),
    "select_paged": (
        "select_paged(Tensor query, Tensor head_weights, Tensor pages, "
        "Tensor block_table, Tensor lengths, int k, int pool_size=4, "
        "bool rotate=True, str codes=\"f8E4M3FN\", int page_entries=64, "
        "bool scales_first=False) -> Tensor tokens", _select_paged),
    "refine_paged": (
        "refine_paged(Tensor query, Tensor head_weights, Tensor candidates, "
        "Tensor pages, Tensor block_table, Tensor lengths, int k, "
        "bool rotate=True, str codes=\"f8E4M3FN\", int page_entries=256, "
        "bool scales_first=False) -> Tensor tokens", _refine_paged),
    "append_paged": (
        "append_paged(Tensor keys, Tensor scores, Tensor? bias, "
        "Tensor(b!) tail_keys, Tensor(c!) tail_scores, Tensor lengths, "
        "Tensor(a!) pages, Tensor block_table, int pool_size=4, "
        "bool rotate=True, str codes=\"f8E4M3FN\", bool pow2_scale=False, "
        "float temperature=1.0, int page_entries=64, "
        "bool scales_first=False) -> (Tensor(a!), Tensor(b!), Tensor(c!))",
        _append_paged),
}

def _meta_tensor(like, shape, dtype):
    return torch.empty(shape, dtype=dtype, device=like.device)


# Meta (shape-only) kernels: what tracing tools (torch.fx, fake tensors,
# torch.compile's graph capture) call to learn the outputs' shapes and
# dtypes without running anything. The paged ops return their in-place
# operands, as their schemas say.
_META = {
    "compress": lambda keys, scores, bias=None, pool_size=4, rotate=True,
    codes="f8E4M3FN", pow2_scale=False, temperature=1.0: (
        _meta_tensor(keys, (keys.shape[0] // pool_size, keys.shape[1]),
                     dtypes.torch_dtype(codes)),
        _meta_tensor(keys, (keys.shape[0] // pool_size,), torch.float32)),
    "select": lambda query, head_weights, codes, scales, valid, k,
    pool_size=4, rotate=True: _meta_tensor(
        query, (query.shape[0], k * pool_size), torch.int32),
    "compress_paged": lambda keys, scores, bias, pages, slots, *args,
    **kwargs: pages,
    "select_paged": lambda query, head_weights, pages, block_table, lengths,
    k, pool_size=4, *args, **kwargs: _meta_tensor(
        query, (query.shape[0], query.shape[1], k * pool_size + pool_size - 1),
        torch.int32),
    "refine_paged": lambda query, head_weights, candidates, pages,
    block_table, lengths, k, *args, **kwargs: _meta_tensor(
        query, (query.shape[0], query.shape[1], k), torch.int32),
    "append_paged": lambda keys, scores, bias, tail_keys, tail_scores,
    lengths, pages, block_table, *args, **kwargs: (pages, tail_keys,
                                                    tail_scores),
}

# One definition per process, also when this module is imported again.
if not hasattr(torch.ops.indexpool, "_indexpool_library"):
    _library = torch.library.Library("indexpool", "DEF")
    for _name, (_schema, _impl) in _SCHEMAS.items():
        _library.define(_schema)
        _library.impl(_name, _impl, "CPU")
        _library.impl(_name, _impl, "CUDA")
        # torch 1.13 has no fallthrough for the meta tensors' autograd key.
        for _key in ("Meta", "AutogradMeta"):
            _library.impl(_name, _META[_name], _key)
    torch.ops.indexpool._indexpool_library = _library

compress = torch.ops.indexpool.compress
select = torch.ops.indexpool.select
compress_paged = torch.ops.indexpool.compress_paged
select_paged = torch.ops.indexpool.select_paged
append_paged = torch.ops.indexpool.append_paged
refine_paged = torch.ops.indexpool.refine_paged


def compiled_functions():
    """The functions compiled so far, by their cache key (for tests): (the
    indexpool.ops builder's name, its positional arguments, its options as
    sorted pairs, the in-place arguments, then the device's part)."""
    return dict(_cache)
