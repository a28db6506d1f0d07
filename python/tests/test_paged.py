"""The paged serving layout from torch: torch.ops.indexpool.compress_paged,
select_paged and append_paged on CPU tensors, checked against the float64
reference (indexpool.verify), the pages (and tails) updated in place."""

import numpy as np
import pytest

import indexpool

torch = pytest.importorskip("torch")
import indexpool.torch  # noqa: E402  (defines torch.ops.indexpool)

D, E, P = 64, 16, 4
PAGE_BYTES = E * (D + 4)


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(20240611)


def random_pages(pages, gen):
    """Random bytes, none zero: the bytes no op writes keep them."""
    return torch.randint(1, 256, (pages, PAGE_BYTES), generator=gen,
                         dtype=torch.int32).to(torch.uint8).view(torch.int8)


def bf16(shape, gen):
    return torch.randn(*shape, generator=gen).to(torch.bfloat16)


def test_schemas_say_the_pages_are_updated():
    schema = str(torch.ops.indexpool.compress_paged.default._schema)
    assert "Tensor(a!) pages" in schema and schema.endswith("-> Tensor(a!)")
    schema = str(torch.ops.indexpool.append_paged.default._schema)
    assert "Tensor(b!) tail_keys" in schema
    assert schema.endswith("-> (Tensor(a!), Tensor(b!), Tensor(c!))")


def test_compress_paged_writes_the_pages_in_place(gen):
    tokens, pages = 202, 8
    keys = bf16((tokens, D), gen)
    scores = torch.randn(tokens, D, generator=gen)
    bias = torch.randn(P, D, generator=gen)
    cache = random_pages(pages, gen)
    before = cache.clone()
    slots = torch.randperm(pages * E, generator=gen)[:tokens // P]
    slots[::5] = -1
    pointer = cache.data_ptr()

    result = torch.ops.indexpool.compress_paged(
        keys, scores, bias, cache, slots, pool_size=P, rotate=True,
        pow2_scale=True, temperature=0.75, page_entries=E)
    assert result is cache and cache.data_ptr() == pointer
    assert not torch.equal(cache, before)

    module = indexpool.ops.compress_paged(
        (-1, D), "bf16", P, True, page_entries=E, per_channel_scores=True,
        bias="channel", pow2_scale=True, temperature=0.75)
    indexpool.verify(module, "compress_paged",
                     (keys, scores, bias, before, slots), (cache,))


def test_compress_paged_takes_uint8_pages_and_i8_codes(gen):
    tokens, pages = 64, 2
    keys = torch.randn(tokens, D, generator=gen)
    scores = torch.randn(tokens, generator=gen)
    cache = random_pages(pages, gen).view(torch.uint8)
    before = cache.clone()
    slots = torch.arange(tokens // P) * 2
    result = indexpool.torch.compress_paged(
        keys, scores, None, cache, slots, rotate=False, codes="i8",
        page_entries=E, scales_first=True)
    assert result is cache and result.dtype == torch.uint8
    module = indexpool.ops.compress_paged(
        (-1, D), "f32", rotate=False, codes="i8", page_entries=E,
        scales_first=True)
    indexpool.verify(module, "compress_paged",
                     (keys, scores, before.view(torch.int8), slots),
                     (cache.view(torch.int8),))


def filled_pages(pages, gen):
    """Pages every entry of which compress_paged wrote."""
    tokens = pages * E * P
    cache = random_pages(pages, gen)
    torch.ops.indexpool.compress_paged(
        bf16((tokens, D), gen), torch.randn(tokens, generator=gen), None,
        cache, torch.randperm(pages * E, generator=gen), page_entries=E)
    return cache


def test_select_paged_matches_the_reference(gen):
    pages, batch, rows, heads, max_pages, k = 8, 3, 2, 4, 4, 8
    cache = filled_pages(pages, gen)
    before = cache.clone()
    query = bf16((batch, rows, heads, D), gen)
    weights = torch.rand(batch, rows, heads, generator=gen)
    table = torch.randint(0, pages, (batch, max_pages), generator=gen,
                          dtype=torch.int32)
    lengths = torch.tensor([[256, 203], [17, 30], [130, 131]],
                           dtype=torch.int32)

    tokens = torch.ops.indexpool.select_paged(
        query, weights, cache, table, lengths, k, page_entries=E)
    assert tokens.dtype == torch.int32
    assert tokens.shape == (batch, rows, k * P + P - 1)
    assert torch.equal(cache, before)
    # Row (1, 0) sees 17 tokens: 4 pooled entries, then its one tail token.
    assert sorted(tokens[1, 0, :k * P].tolist())[-16:] == list(range(16))
    assert tokens[1, 0, k * P:].tolist() == [16, -1, -1]

    module = indexpool.ops.select_paged((-1, -1, heads, D), "bf16", k,
                                        page_entries=E)
    indexpool.verify(module, "select_paged",
                     (query, weights, cache, table, lengths), (tokens,))


def test_append_paged_updates_pages_and_tails_in_place(gen):
    batch, n, max_pages = 3, 3, 4
    pages = batch * max_pages
    keys = torch.randn(batch, n, D, generator=gen)
    scores = torch.randn(batch, n, generator=gen)
    bias = torch.randn(P, generator=gen)
    tail_keys = torch.randn(batch, P - 1, D, generator=gen)
    tail_scores = torch.randn(batch, P - 1, generator=gen)
    lengths = torch.tensor([0, 118, 253], dtype=torch.int32)
    cache = random_pages(pages, gen)
    table = torch.randperm(pages, generator=gen).view(batch, max_pages)
    before = [t.clone() for t in (tail_keys, tail_scores, cache)]
    pointers = [t.data_ptr() for t in (cache, tail_keys, tail_scores)]

    results = torch.ops.indexpool.append_paged(
        keys, scores, bias, tail_keys, tail_scores, lengths, cache, table,
        rotate=True, temperature=1.5, page_entries=E)
    assert results[0] is cache and results[1] is tail_keys
    assert results[2] is tail_scores
    assert [t.data_ptr() for t in results] == pointers
    assert not torch.equal(cache, before[2])
    assert not torch.equal(tail_keys, before[0])

    module = indexpool.ops.append_paged(
        (-1, -1, D), "f32", P, True, page_entries=E, bias="slot",
        temperature=1.5)
    inputs = (keys, scores, bias, before[0], before[1], lengths, before[2],
              table.to(torch.int32))
    indexpool.verify(module, "append_paged", inputs,
                     (cache, tail_keys, tail_scores))


def test_prefill_and_appends_equal_one_compress_paged(gen):
    total, prefill, max_pages, pages = 250, 37, 4, 6
    keys = bf16((total, D), gen)
    scores = torch.randn(total, generator=gen)
    table = torch.randperm(pages, generator=gen)[:max_pages].to(torch.int32)
    group_slots = (table.long()[torch.arange(total // P) // E] * E
                   + torch.arange(total // P) % E)
    initial = random_pages(pages, gen)

    whole = initial.clone()
    torch.ops.indexpool.compress_paged(keys, scores, None, whole, group_slots,
                                       pow2_scale=True, page_entries=E)

    served = initial.clone()
    torch.ops.indexpool.compress_paged(
        keys[:prefill], scores[:prefill], None, served,
        group_slots[:prefill // P], pow2_scale=True, page_entries=E)
    tail = prefill // P * P
    tail_keys = bf16((1, P - 1, D), gen)
    tail_scores = torch.randn(1, P - 1, generator=gen)
    tail_keys[0, :prefill - tail] = keys[tail:prefill]
    tail_scores[0, :prefill - tail] = scores[tail:prefill]
    length, steps = prefill, 0
    while length < total:
        n = min(1 + steps % 5, total - length)
        torch.ops.indexpool.append_paged(
            keys[None, length:length + n], scores[None, length:length + n],
            None, tail_keys, tail_scores,
            torch.tensor([length], dtype=torch.int32), served, table[None],
            pow2_scale=True, page_entries=E)
        length += n
        steps += 1
    assert torch.equal(served, whole)
    # One compiled function served every step size.
    # The key: (builder, its arguments (shape, key type, ...), options, ...).
    compiled = [key for key in indexpool.torch.compiled_functions()
                if key[0] == "append_paged" and key[1][0][-1] == D
                and key[1][1] == "bf16"]
    assert len(compiled) == 1


def test_paged_errors(gen):
    keys, scores = torch.randn(8, D), torch.randn(8)
    slots = torch.arange(2)
    cache = random_pages(2, gen)
    with pytest.raises(TypeError, match="pages must be torch.int8"):
        torch.ops.indexpool.compress_paged(keys, scores, None, cache.float(),
                                           slots, page_entries=E)
    wide = random_pages(4, gen).view(2, 2 * PAGE_BYTES)[:, :PAGE_BYTES]
    with pytest.raises(ValueError, match="pages must be contiguous"):
        torch.ops.indexpool.compress_paged(keys, scores, None, wide, slots,
                                           page_entries=E)
    with pytest.raises(indexpool.IndexPoolError, match="slot"):
        torch.ops.indexpool.compress_paged(keys, scores, None, cache,
                                           torch.tensor([1, 1]),
                                           page_entries=E)
    # Pages on another device than the keys (a CUDA tensor looking pages:
    # test_gpu.py) are refused before anything runs.
    with pytest.raises(ValueError, match="pages is on meta, the keys on cpu"):
        indexpool.torch._compress_paged(keys, scores, None, cache.to("meta"),
                                        slots, page_entries=E)


def test_in_place_numpy_arguments_must_be_writable(gen):
    module = indexpool.ops.compress_paged((-1, D), "f32", rotate=False,
                                          page_entries=E)
    compiled = indexpool._indexpool.compile_cpu(
        module, "compress_paged", in_place_arguments=[2])
    function = indexpool.Function(compiled, module)
    keys = np.random.default_rng(1).standard_normal((8, D), dtype=np.float32)
    scores = np.ones(8, np.float32)
    pages = random_pages(1, gen).numpy()
    pages.flags.writeable = False
    with pytest.raises(ValueError, match="argument #2 .*read-only"):
        function(keys, scores, pages, np.arange(2, dtype=np.int64))


def test_two_stage_selection_on_a_token_tier(gen):
    """compress_paged with pool_size=1 writes the token tier (P x E tokens a
    page, the pooled pages' page ids); refine_paged re-scores select_paged's
    candidates there and matches the float64 reference; over every token it
    is select_paged with pool_size=1 on the tier."""
    pages, max_pages, heads, k = 4, 4, 4, 8
    tier_entries = P * E
    tokens = pages * tier_entries
    keys = bf16((tokens, D), gen)
    scores = torch.randn(tokens, generator=gen)
    pools = random_pages(pages, gen)
    tier = torch.randint(1, 256, (pages, tier_entries * (D + 4)),
                         generator=gen, dtype=torch.int32).to(
                             torch.uint8).view(torch.int8)
    group_slots = torch.arange(pages * E)
    torch.ops.indexpool.compress_paged(keys, scores, None, pools, group_slots,
                                       page_entries=E)
    token_slots = (group_slots.repeat_interleave(P) * P
                   + torch.arange(tokens) % P)
    torch.ops.indexpool.compress_paged(keys, scores, None, tier, token_slots,
                                       pool_size=1, page_entries=tier_entries)
    query = bf16((2, 1, heads, D), gen)
    weights = torch.rand(2, 1, heads, generator=gen)
    table = torch.arange(max_pages, dtype=torch.int32).repeat(2, 1)
    lengths = torch.tensor([[tokens], [150]], dtype=torch.int32)

    candidates = torch.ops.indexpool.select_paged(
        query, weights, pools, table, lengths, 4 * k // P, page_entries=E)
    refined = torch.ops.indexpool.refine_paged(
        query, weights, candidates, tier, table, lengths, k,
        page_entries=tier_entries)
    assert refined.shape == (2, 1, k) and refined.dtype == torch.int32
    assert (refined >= 0).all()
    # Every kept token is a candidate of its row, below its length.
    for b in range(2):
        assert set(refined[b, 0].tolist()) <= set(candidates[b, 0].tolist())
        assert refined[b].max().item() < lengths[b, 0].item()
    module = indexpool.ops.refine_paged((-1, -1, heads, D), "bf16", k,
                                        page_entries=tier_entries)
    indexpool.verify(module, "refine_paged",
                     (query, weights, candidates, tier, table, lengths),
                     (refined,))

    every = torch.full((2, 1, tokens), -1, dtype=torch.int32)
    for b in range(2):
        n = lengths[b, 0].item()
        every[b, 0, :n] = torch.arange(n, dtype=torch.int32)
    exact = torch.ops.indexpool.refine_paged(
        query, weights, every, tier, table, lengths, k,
        page_entries=tier_entries)
    scan = torch.ops.indexpool.select_paged(
        query, weights, tier, table, lengths, k, pool_size=1,
        page_entries=tier_entries)
    assert torch.equal(exact, scan)


def test_refine_paged_rejects_k_above_the_candidates(gen):
    query = bf16((1, 1, 4, D), gen)
    with pytest.raises(Exception, match=r"k must be in \[0, C = 4\], got 5"):
        torch.ops.indexpool.refine_paged(
            query, torch.rand(1, 1, 4, generator=gen),
            torch.zeros(1, 1, 4, dtype=torch.int32),
            random_pages(1, gen), torch.zeros(1, 1, dtype=torch.int32),
            torch.tensor([[3]], dtype=torch.int32), 5, page_entries=E)


def test_refine_paged_bad_token_tiers(gen):
    """A token tier that does not hold the candidates' pages, or whose pages
    are the wrong size, is one error naming what is wrong; candidates past
    a row's length (k above the row's tokens) come back as -1 padding."""
    tier_entries = P * E
    tier_bytes = tier_entries * (D + 4)
    query = bf16((1, 1, 4, D), gen)
    weights = torch.rand(1, 1, 4, generator=gen)
    candidates = torch.arange(16, dtype=torch.int32).view(1, 1, 16)
    tier = torch.randint(1, 256, (2, tier_bytes), generator=gen,
                         dtype=torch.int32).to(torch.uint8).view(torch.int8)
    table = torch.tensor([[0, 1]], dtype=torch.int32)

    def refine(pages, block_table, length, k=4):
        return torch.ops.indexpool.refine_paged(
            query, weights, candidates, pages, block_table,
            torch.tensor([[length]], dtype=torch.int32), k,
            page_entries=tier_entries)

    # The tier lacks the page the block table names for token 0.
    with pytest.raises(indexpool.IndexPoolError,
                       match=r"block_table\[0, 0\] = 3 is not a page id "
                             r"in \[0, 2\)"):
        refine(tier, torch.tensor([[3, 1]], dtype=torch.int32), 100)
    # The pooled pages (E entries a page) passed as the tier (P x E).
    with pytest.raises(indexpool.IndexPoolError,
                       match=rf"input #3 \(pages\) is \[2, {PAGE_BYTES}\], "
                             rf"expected tensor<\?x{tier_bytes}xi8>"):
        refine(random_pages(2, gen), table, 100)
    # A length the block table cannot hold: the tier's entries are tokens.
    with pytest.raises(indexpool.IndexPoolError,
                       match=r"the length 1000 of query row \(0, 0\) needs "
                             r"1000 entries \(one per token\), more than "
                             r"max_pages \* E = 128"):
        refine(tier, table, 1000)
    # k = 4 of a row of 3 tokens: the 3 tokens, then padding; the float64
    # reference agrees.
    short = refine(tier, table, 3)
    assert sorted(short[0, 0, :3].tolist()) == [0, 1, 2]
    assert short[0, 0, 3].item() == -1
    module = indexpool.ops.refine_paged((-1, -1, 4, D), "bf16", 4,
                                        page_entries=tier_entries)
    indexpool.verify(module, "refine_paged",
                     (query, weights, candidates, tier, table,
                      torch.tensor([[3]], dtype=torch.int32)), (short,))


def test_i4_pages_from_torch(gen):
    """codes="i4": two codes a byte, E * (D / 2 + 4) bytes a page; the
    compress and the select match the float64 reference."""
    i4_bytes = E * (D // 2 + 4)
    pages, tokens = 4, 4 * E * P
    cache = torch.randint(1, 256, (pages, i4_bytes), generator=gen,
                          dtype=torch.int32).to(torch.uint8).view(torch.int8)
    before = cache.clone()
    keys = bf16((tokens, D), gen)
    scores = torch.randn(tokens, generator=gen)
    slots = torch.randperm(pages * E, generator=gen)
    torch.ops.indexpool.compress_paged(keys, scores, None, cache, slots,
                                       codes="i4", page_entries=E)
    assert not torch.equal(cache, before)
    module = indexpool.ops.compress_paged((-1, D), "bf16", codes="i4",
                                          page_entries=E)
    indexpool.verify(module, "compress_paged",
                     (keys, scores, before, slots), (cache,))

    batch, rows, heads, k = 2, 2, 4, 8
    query = bf16((batch, rows, heads, D), gen)
    weights = torch.rand(batch, rows, heads, generator=gen)
    table = torch.randint(0, pages, (batch, pages), generator=gen,
                          dtype=torch.int32)
    lengths = torch.tensor([[256, 203], [17, 130]], dtype=torch.int32)
    tokens = torch.ops.indexpool.select_paged(
        query, weights, cache, table, lengths, k, codes="i4", page_entries=E)
    module = indexpool.ops.select_paged((-1, -1, heads, D), "bf16", k,
                                        codes="i4", page_entries=E)
    indexpool.verify(module, "select_paged",
                     (query, weights, cache, table, lengths), (tokens,))
    # An odd D has no i4 layout: the builder says so.
    with pytest.raises(Exception, match="dim must be even"):
        indexpool.ops.compress_paged((-1, 63), "bf16", rotate=False,
                                     codes="i4")
