"""Every torch op called twice in one process with one option changed,
both results checked against the float64 reference (indexpool.verify) for
that option: a compiled function reused across options it depends on
(select(k=32) served by the function of k=16) fails here. The ops' cache
key is the indexpool.ops builder's whole call (indexpool/torch.py
_function); scripts/python-mutations.py plants bugs in it and in the ops'
option passing and checks that these tests fail."""

import numpy as np
import pytest

import indexpool

torch = pytest.importorskip("torch")
import indexpool.torch  # noqa: E402  (defines torch.ops.indexpool)

D, E = 64, 16


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(20261206)


def variants(base, **changes):
    """`base`, then `base` with each option of `changes` changed alone."""
    yield dict(base)
    for name, value in changes.items():
        yield dict(base, **{name: value})


COMPRESS = dict(pool_size=4, rotate=True, codes="f8E4M3FN", pow2_scale=False,
                temperature=1.0)


@pytest.mark.parametrize("options", list(variants(
    COMPRESS, pool_size=8, rotate=False, codes="i8", pow2_scale=True,
    temperature=0.5)))
def test_compress_per_option(gen, options):
    keys = torch.randn(128, D, generator=gen)
    scores = torch.randn(128, generator=gen)
    codes, scales = torch.ops.indexpool.compress(keys, scores, None,
                                                 **options)
    module = indexpool.ops.compress(
        (-1, D), "f32", options["pool_size"], options["rotate"],
        codes=options["codes"], pow2_scale=options["pow2_scale"],
        temperature=options["temperature"])
    indexpool.verify(module, "compress", (keys.numpy(), scores.numpy()),
                     (codes.numpy().view(np.uint8 if options["codes"] !=
                                         "i8" else np.int8),
                      scales.numpy()))


def test_compress_options_in_one_process(gen):
    """The variants above in one order, each after the base: a cached
    function of another option is what they would reuse."""
    for options in variants(COMPRESS, pool_size=8, rotate=False, codes="i8",
                            pow2_scale=True, temperature=0.5):
        test_compress_per_option(gen, options)


SELECT = dict(k=16, pool_size=4, rotate=True, valid=False)


def run_select(gen, options):
    m, h, n = 3, 4, 64
    keys = torch.randn(n * options["pool_size"], D, generator=gen)
    codes, scales = torch.ops.indexpool.compress(
        keys, torch.randn(keys.shape[0], generator=gen), None,
        pool_size=options["pool_size"], rotate=options["rotate"])
    query = torch.randn(m, h, D, generator=gen)
    weights = torch.rand(m, h, generator=gen)
    valid = torch.tensor([n, n // 2, n - 3], dtype=torch.int32) \
        if options["valid"] else None
    tokens = torch.ops.indexpool.select(
        query, weights, codes, scales, valid, options["k"],
        pool_size=options["pool_size"], rotate=options["rotate"])
    assert tokens.shape == (m, options["k"] * options["pool_size"])
    module = indexpool.ops.select(
        (m, h, D), "f32", -1, options["k"], options["pool_size"],
        options["rotate"], valid=options["valid"])
    inputs = [query.numpy(), weights.numpy(), codes.numpy(), scales.numpy()]
    if valid is not None:
        inputs.append(valid.numpy())
    indexpool.verify(module, "select", inputs, (tokens.numpy(),))


def test_select_options_in_one_process(gen):
    for options in variants(SELECT, k=32, pool_size=8, rotate=False,
                            valid=True):
        run_select(gen, options)


PAGED = dict(pool_size=4, rotate=True, codes="f8E4M3FN", pow2_scale=False,
             temperature=1.0, page_entries=E, scales_first=False)


def run_compress_paged(gen, options):
    pages = 4
    tokens = pages * options["page_entries"] * options["pool_size"]
    keys = torch.randn(tokens, D, generator=gen)
    scores = torch.randn(tokens, generator=gen)
    entry = D // 2 if options["codes"] in ("i4", "f4E2M1FN") else D
    cache = torch.randint(-128, 128, (pages, options["page_entries"] *
                                      (entry + 4)),
                          generator=gen, dtype=torch.int32).to(torch.int8)
    before = cache.clone()
    slots = torch.randperm(pages * options["page_entries"], generator=gen)
    torch.ops.indexpool.compress_paged(keys, scores, None, cache, slots,
                                       **options)
    module = indexpool.ops.compress_paged(
        (-1, D), "f32", options["pool_size"], options["rotate"],
        codes=options["codes"], page_entries=options["page_entries"],
        scales_first=options["scales_first"],
        pow2_scale=options["pow2_scale"], temperature=options["temperature"])
    indexpool.verify(module, "compress_paged",
                     (keys, scores, before, slots), (cache,))
    return cache


def test_compress_paged_options_in_one_process(gen):
    for options in variants(PAGED, pool_size=8, rotate=False, codes="i8",
                            pow2_scale=True, temperature=0.5,
                            page_entries=8, scales_first=True):
        run_compress_paged(gen, options)


def test_select_paged_options_in_one_process(gen):
    batch, heads, max_pages = 2, 4, 4
    base = dict(k=8, pool_size=4, rotate=True, codes="f8E4M3FN",
                page_entries=E, scales_first=False)
    for options in variants(base, k=16, pool_size=8, rotate=False,
                            codes="i8", page_entries=8, scales_first=True):
        compress = {name: options[name] for name in
                    ("pool_size", "rotate", "codes", "page_entries",
                     "scales_first")}
        cache = run_compress_paged(gen, dict(PAGED, **compress))
        query = torch.randn(batch, 1, heads, D, generator=gen)
        weights = torch.rand(batch, 1, heads, generator=gen)
        table = torch.randint(0, cache.shape[0], (batch, max_pages),
                              generator=gen, dtype=torch.int32)
        full = max_pages * options["page_entries"] * options["pool_size"]
        lengths = torch.tensor([[full], [full // 2 + 1]], dtype=torch.int32)
        tokens = torch.ops.indexpool.select_paged(
            query, weights, cache, table, lengths, **options)
        module = indexpool.ops.select_paged(
            (-1, -1, heads, D), "f32", options["k"], options["pool_size"],
            options["rotate"], codes=options["codes"],
            page_entries=options["page_entries"],
            scales_first=options["scales_first"])
        indexpool.verify(module, "select_paged",
                         (query, weights, cache, table, lengths), (tokens,))


def test_index_tensors_are_int64_or_int32_and_range_checked(gen):
    """torch's default int64 is taken, checked against int32: a page id of
    2^32 + 1 is an error naming the operand, never page 1."""
    cache = run_compress_paged(gen, PAGED)
    query = torch.randn(1, 1, 4, D, generator=gen)
    weights = torch.rand(1, 1, 4, generator=gen)
    table = torch.tensor([[0, 1, 2, 3]])
    lengths = torch.tensor([[100]])
    assert table.dtype == lengths.dtype == torch.int64
    as_int64 = torch.ops.indexpool.select_paged(
        query, weights, cache, table, lengths, 8, page_entries=E)
    as_int32 = torch.ops.indexpool.select_paged(
        query, weights, cache, table.int(), lengths.int(), 8, page_entries=E)
    assert torch.equal(as_int64, as_int32)
    far = table.clone()
    far[0, 1] = 2**32 + 1
    with pytest.raises(ValueError, match=r"select_paged: block_table holds "
                       r"4294967297, outside int32"):
        torch.ops.indexpool.select_paged(query, weights, cache, far, lengths,
                                         8, page_entries=E)
    with pytest.raises(ValueError, match=r"lengths holds -2147483649"):
        torch.ops.indexpool.select_paged(query, weights, cache, table,
                                         lengths - 2**31 - 101, 8,
                                         page_entries=E)
    with pytest.raises(TypeError, match=r"block_table must be an integer "
                       r"tensor, got torch.float32"):
        torch.ops.indexpool.select_paged(query, weights, cache,
                                         table.float(), lengths, 8,
                                         page_entries=E)


def test_meta_kernels_give_the_real_shapes_and_dtypes(gen):
    """Tracing tools run the ops on meta tensors: each op's outputs there
    have the shapes and dtypes a CPU run gives."""
    def same(real, meta):
        real = real if isinstance(real, tuple) else (real,)
        meta = meta if isinstance(meta, tuple) else (meta,)
        assert [(t.shape, t.dtype) for t in real] == \
            [(t.shape, t.dtype) for t in meta]
        assert all(t.device.type == "meta" for t in meta)

    def both(op, *args, **kwargs):
        real = op(*args, **kwargs)
        metas = [a.to("meta") if isinstance(a, torch.Tensor) else a
                 for a in args]
        same(real, op(*metas, **kwargs))

    ops = torch.ops.indexpool
    keys, scores = torch.randn(128, D, generator=gen), torch.randn(128)
    for codes in ("f8E4M3FN", "i8"):
        both(ops.compress, keys, scores, None, pool_size=8, codes=codes)
    codes, scales = ops.compress(keys, scores, None)
    query, weights = torch.randn(3, 4, D), torch.rand(3, 4)
    both(ops.select, query, weights, codes, scales, None, 5)
    cache = run_compress_paged(gen, PAGED)
    query4, weights4 = torch.randn(2, 1, 4, D), torch.rand(2, 1, 4)
    table = torch.randint(0, 4, (2, 4), dtype=torch.int32)
    lengths = torch.tensor([[256], [100]], dtype=torch.int32)
    both(ops.select_paged, query4, weights4, cache, table, lengths, 8,
         page_entries=E)
    token_pages = torch.zeros(4, E * 4 * (D + 4), dtype=torch.int8)
    candidates = torch.randint(0, 64, (2, 1, 24), dtype=torch.int32)
    both(ops.refine_paged, query4, weights4, candidates, token_pages, table,
         lengths, 8, page_entries=E * 4)
    both(ops.compress_paged, keys, scores, None, cache.clone(),
         torch.arange(32), page_entries=E)
    both(ops.append_paged, torch.randn(2, 3, D), torch.randn(2, 3), None,
         torch.randn(2, 3, D), torch.randn(2, 3),
         torch.tensor([5, 9], dtype=torch.int32), cache.clone(), table,
         page_entries=E)


def test_refine_paged_candidates_at_the_row_length(gen):
    """The boundary of a row's tokens: candidate L - 1 is a token, L (one
    past the row's length) and -1 are padding, never returned; the result
    is the reference's."""
    entries, pages, heads = 16, 4, 4
    tokens = pages * entries
    keys = torch.randn(tokens, D, generator=gen)
    scores = torch.randn(tokens, generator=gen)
    tier = torch.randint(-128, 128, (pages, entries * (D + 4)), generator=gen,
                         dtype=torch.int32).to(torch.int8)
    torch.ops.indexpool.compress_paged(keys, scores, None, tier,
                                       torch.arange(tokens), pool_size=1,
                                       page_entries=entries)
    query = torch.randn(2, 1, heads, D, generator=gen)
    weights = torch.rand(2, 1, heads, generator=gen)
    table = torch.tensor([[0, 1, 2, 3], [3, 2, 1, 0]], dtype=torch.int32)
    lengths = torch.tensor([[37], [64]], dtype=torch.int32)
    candidates = torch.tensor([[[36, 37, -1, 0, 35, 37, 5, -1]],
                               [[63, 64, -1, 62, 64, 1, -1, 64]]],
                              dtype=torch.int32)
    for k in (3, 6):  # 6: more than row 1's valid candidates (3)
        got = torch.ops.indexpool.refine_paged(
            query, weights, candidates, tier, table, lengths, k,
            page_entries=entries)
        for row, length in ((0, 37), (1, 64)):
            kept = got[row, 0].tolist()
            assert length not in kept, kept
            assert set(kept) <= set(candidates[row, 0].tolist()) | {-1}
        assert got[1, 0].tolist().count(-1) == (3 if k == 6 else 0)
        module = indexpool.ops.refine_paged((-1, -1, heads, D), "f32", k,
                                            page_entries=entries)
        indexpool.verify(module, "refine_paged",
                         (query, weights, candidates, tier, table, lengths),
                         (got,))
