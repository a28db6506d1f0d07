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
           rotate=True, *, codes="f8E4M3FN", valid=False, refine=0,
           token_keys="bf16", tokens=-1, name="select"):
    """@select(query [M, H, D], head_weights [M, H] f32, codes [N, D],
    scales [N] f32, [valid [M] i32], [token_keys [T, D], [token_scales [T]
    f32]]) -> tokens [M, k * P] i32.

    query_shape: (M, H, D); dtype: the query's type; pools: N (-1/None:
    any). codes: "f8E4M3FN" or "i8" (with scales), or f32/f16/bf16 (without
    scales). rotate: rotate the query as compress rotated the keys.
    refine: C > 0 keeps C * k pools and re-scores their tokens against the
    token keys (token_keys: their type; with f8E4M3FN / i8, token_scales
    follow; tokens: T, -1/None: any), returning the best k * P
    (indexpool.refine).
    """
    queries, heads, dim = query_shape
    return _indexpool.build_select(
        queries=int(queries), heads=int(heads), dim=int(dim),
        pools=_size(pools), query_type=dtypes.code(dtype),
        code_type=dtypes.code(codes), k=k, pool_size=pool_size,
        rotate=rotate, valid=valid, refine=refine,
        token_key_type=dtypes.code(token_keys), tokens=_size(tokens),
        name=name)


# The paged serving layout (docs/serving-layout.md): pages are
# [pages, page_entries * (D + 4)] int8 (D / 2 + 4 with codes="i4", two
# codes a byte), each page's codes then its f32 scales (scales
# first with scales_first). Compile compress_paged and
# append_paged with the pages (and append's tails) in place
# (indexpool.torch does) so that a call updates the caller's cache.


def compress_paged(keys_shape, dtype="bf16", pool_size=4, rotate=True, *,
                   pages=-1, page_entries=64, codes="f8E4M3FN",
                   scales_first=False, per_channel_scores=False, bias=None,
                   temperature=1.0, pow2_scale=False, name="compress_paged"):
    """@compress_paged(keys [T, D], scores [T] or [T, D] f32, [bias],
    pages, slots [T/P] i64) -> pages: compress, group g written at slot
    slots[g] (page slots[g] // page_entries; a negative slot skips it).

    keys_shape: (T, D), T -1/None for any number of tokens. pages: the
    number of pages (-1/None: any). The other options are compress's.
    """
    tokens, dim = keys_shape
    return _indexpool.build_compress_paged(
        tokens=_size(tokens), dim=int(dim), key_type=dtypes.code(dtype),
        pool_size=pool_size, per_channel_scores=per_channel_scores,
        bias=bias or "none", temperature=temperature, rotate=rotate,
        pow2_scale=pow2_scale, pages=_size(pages), page_entries=page_entries,
        code_type=dtypes.code(codes), scales_first=scales_first, name=name)


def select_paged(query_shape, dtype="bf16", k=512, pool_size=4, rotate=True,
                 *, pages=-1, max_pages=-1, page_entries=64, codes="f8E4M3FN",
                 scales_first=False, name="select_paged"):
    """@select_paged(query [B, S, H, D], head_weights [B, S, H] f32, pages,
    block_table [B, max_pages] i32, lengths [B, S] i32) -> tokens
    [B, S, k * P + P - 1] i32: each row's top-k pooled entries expanded to
    tokens (-1 for empty slots), then its tail tokens (-1 after them).

    query_shape: (B, S, H, D), B (and S) -1/None for any. rotate: rotate
    the query as compress_paged rotated the keys.
    """
    batch, rows, heads, dim = query_shape
    return _indexpool.build_select_paged(
        batch=_size(batch), rows=_size(rows), heads=int(heads), dim=int(dim),
        max_pages=_size(max_pages), query_type=dtypes.code(dtype), k=k,
        pool_size=pool_size, rotate=rotate, pages=_size(pages),
        page_entries=page_entries, code_type=dtypes.code(codes),
        scales_first=scales_first, name=name)


def refine_paged(query_shape, dtype="bf16", k=2048, rotate=True, *,
                 candidates=-1, pages=-1, max_pages=-1, page_entries=256,
                 codes="f8E4M3FN", scales_first=False, name="refine_paged"):
    """@refine_paged(query [B, S, H, D], head_weights [B, S, H] f32,
    candidates [B, S, C] i32, pages (the token tier), block_table
    [B, max_pages] i32, lengths [B, S] i32) -> tokens [B, S, k] i32: the k
    best candidate tokens of each row re-scored on the token tier (one entry
    per token, docs/serving-layout.md), -1 for padding.

    query_shape: (B, S, H, D), B (and S) -1/None for any. candidates: C,
    -1/None for any. page_entries: the tier's tokens per page, P times the
    pooled pages' entries (256 = 4 x 64). rotate: rotate the query as the
    tier's keys were rotated.
    """
    batch, rows, heads, dim = query_shape
    return _indexpool.build_refine_paged(
        batch=_size(batch), rows=_size(rows), candidates=_size(candidates),
        heads=int(heads), dim=int(dim), max_pages=_size(max_pages),
        query_type=dtypes.code(dtype), k=k, rotate=rotate, pages=_size(pages),
        page_entries=page_entries, code_type=dtypes.code(codes),
        scales_first=scales_first, name=name)


def append_paged(keys_shape, dtype="bf16", pool_size=4, rotate=True, *,
                 pages=-1, max_pages=-1, page_entries=64, codes="f8E4M3FN",
                 scales_first=False, per_channel_scores=False, bias=None,
                 temperature=1.0, pow2_scale=False, name="append_paged"):
    """@append_paged(keys [B, n, D], scores [B, n] or [B, n, D] f32, [bias],
    tail_keys [B, P-1, D], tail_scores [B, P-1] or [B, P-1, D] f32,
    lengths [B] i32, pages, block_table [B, max_pages] i32) -> (pages,
    tail_keys, tail_scores): one decode step; the caller adds n to lengths.

    keys_shape: (B, n, D), B and n -1/None for any. The compression options
    are compress_paged's (the same as the prefill's, so that the pages equal
    one compress_paged of the whole sequence).
    """
    batch, new_tokens, dim = keys_shape
    return _indexpool.build_append_paged(
        batch=_size(batch), new_tokens=_size(new_tokens), dim=int(dim),
        max_pages=_size(max_pages), key_type=dtypes.code(dtype),
        pool_size=pool_size, per_channel_scores=per_channel_scores,
        bias=bias or "none", temperature=temperature, rotate=rotate,
        pow2_scale=pow2_scale, pages=_size(pages), page_entries=page_entries,
        code_type=dtypes.code(codes), scales_first=scales_first, name=name)
