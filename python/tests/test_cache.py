"""indexpool.Cache: sequences added, forked and freed between decode steps
of random keys (never zeros); every select passes the float64 reference
(indexpool.verify on the cache's own pages); snapshots round-trip and bad
files and calls raise IndexPoolError with the C++ message."""

import os

import numpy as np
import pytest

import indexpool

pytestmark = pytest.mark.skipif(indexpool.Cache is None,
                                reason="built without the cache runtime")

L, D, P, E, H, K = 2, 32, 4, 4, 4, 6


@pytest.fixture
def rng():
    return np.random.default_rng(20261204)


def make_cache():
    return indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                           pages=64, heads=H, k=K, threads=2)


def step(cache, sequences, n, rng):
    keys = rng.standard_normal((L, len(sequences), n, D), dtype=np.float32)
    scores = rng.standard_normal((L, len(sequences), n), dtype=np.float32)
    cache.append(sequences, keys, scores)


def check_select(cache, sequences, rng):
    module = indexpool.ops.select_paged((-1, 1, H, D), "f32", k=K,
                                        pool_size=P, page_entries=E)
    # select_paged wants k <= width * E; padding is never read.
    width = max(-(-K // E), max(len(cache.block_table(s)) for s in sequences))
    table = np.zeros((len(sequences), width), dtype=np.int32)
    for row, s in enumerate(sequences):
        ids = cache.block_table(s)
        table[row, :len(ids)] = ids
    lengths = np.array([[cache.length(s)] for s in sequences], dtype=np.int32)
    for layer in range(L):
        q = rng.standard_normal((len(sequences), H, D), dtype=np.float32)
        w = rng.standard_normal((len(sequences), H), dtype=np.float32)
        tokens = cache.select(sequences, layer, q, w)
        assert tokens.shape == (len(sequences), K * P + P - 1)
        report = indexpool.verify(
            module, "select_paged",
            (q[:, None], w[:, None], cache.pages(layer), table, lengths),
            (tokens[:, None],))
        assert all(line.endswith("-> ok") for line in report), report


def test_appends_forks_and_selects_match_the_reference(rng):
    cache = make_cache()
    a, b = cache.add(), cache.add()
    step(cache, [a, b], 7, rng)
    step(cache, [a], 17, rng)           # a: 24 tokens, 6 entries
    c = cache.fork(a)
    assert cache.block_table(c) == cache.block_table(a)
    step(cache, [c, b, a], 5, rng)      # entry 6: c copies the half page
    assert cache.block_table(c)[0] == cache.block_table(a)[0]
    assert cache.block_table(c)[1] != cache.block_table(a)[1]
    assert [cache.length(s) for s in (a, b, c)] == [29, 12, 29]
    check_select(cache, [a, b, c], rng)
    cache.free(a)
    step(cache, [b, c], 5, rng)
    check_select(cache, [c, b], rng)


def test_snapshots_round_trip(rng, tmp_path):
    cache = make_cache()
    a = cache.add()
    step(cache, [a], 30, rng)
    b = cache.fork(a)
    step(cache, [a, b], 2, rng)
    path = str(tmp_path / "cache.snapshot")
    cache.snapshot(path, generation=7)
    restored, generation = indexpool.Cache.restore(path, threads=2)
    assert generation == 7
    for s in (a, b):
        assert restored.length(s) == cache.length(s)
        assert restored.block_table(s) == cache.block_table(s)
    for layer in range(L):
        for s in (a, b):
            for page in cache.block_table(s):
                np.testing.assert_array_equal(restored.pages(layer)[page],
                                              cache.pages(layer)[page])
    # Both go on the same way.
    keys = rng.standard_normal((L, 2, 3, D), dtype=np.float32)
    scores = rng.standard_normal((L, 2, 3), dtype=np.float32)
    cache.append([a, b], keys, scores)
    restored.append([a, b], keys, scores)
    for layer in range(L):
        np.testing.assert_array_equal(restored.pages(layer),
                                      cache.pages(layer))
    with open(path, "r+b") as f:
        f.seek(-5, 2)
        byte = f.read(1)
        f.seek(-5, 2)
        f.write(bytes([byte[0] ^ 0x40]))
    with pytest.raises(indexpool.IndexPoolError, match="corrupt body"):
        indexpool.Cache.restore(path)


def test_bad_calls_raise(rng, tmp_path):
    cache = make_cache()
    a = cache.add()
    with pytest.raises(indexpool.IndexPoolError, match="unknown sequence 9"):
        cache.fork(9)
    with pytest.raises(indexpool.IndexPoolError, match=r"keys must have shape"):
        cache.append([a], np.ones((L, 1, 2, D + 1), np.float32),
                     np.ones((L, 1, 2), np.float32))
    cache.free(a)
    with pytest.raises(indexpool.IndexPoolError, match="sequence 0 was freed"):
        step(cache, [a], 1, rng)
    with pytest.raises(indexpool.IndexPoolError,
                       match="not an IndexPool cache snapshot"):
        path = tmp_path / "foreign"
        path.write_text("hello")
        indexpool.Cache.restore(str(path))
    with pytest.raises(indexpool.IndexPoolError, match="expected 1 to 4096 layers"):
        indexpool.Cache(layers=0)


def test_pages_move_between_tiers_and_come_back(rng, tmp_path):
    """4 device pages, 4 in host memory, 32 in a file: three sequences of
    about 4 pages each live mostly below the device tier."""
    cache = indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                            pages=4, heads=H, k=K, threads=2, host_pages=4,
                            file_pages=32, file_path=str(tmp_path / "tier"),
                            policy="lru")
    seqs = [cache.add() for _ in range(3)]
    for _ in range(4):
        for s in seqs:
            step(cache, [s], 15, rng)
    for s in seqs:
        check_select(cache, [s], rng)
    stats = cache.residency()
    assert [t["name"] for t in stats["tiers"]] == ["device", "host", "file"]
    assert stats["misses"] > 0 and stats["tiers"][2]["pages_in"] > 0
    assert sum(t["resident"] for t in stats["tiers"]) == 12
    assert cache.pages(0).shape == (40, E * (D + 4))
    with pytest.raises(indexpool.IndexPoolError,
                       match="the batch writes 6 pages; the device tier holds 4"):
        step(cache, [seqs[0]], 80, rng)
    # A snapshot restores into other tiers: the same selects.
    cache.snapshot(str(tmp_path / "snap"))
    restored, _ = indexpool.Cache.restore(str(tmp_path / "snap"), threads=2,
                                          host_pages=8)
    assert restored.residency()["tiers"][0]["pages"] == 32
    for layer in range(L):
        np.testing.assert_array_equal(restored.pages(layer), cache.pages(layer))


def test_bias_temperature_and_per_channel_scores(rng, tmp_path):
    """The pooling parameters reach the kernels (every select checked by
    the reference, which reads the pages they wrote) and the snapshot."""
    bias = rng.standard_normal((P, D), dtype=np.float32)
    cache = indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                            pages=64, heads=H, k=K, threads=2,
                            per_channel_scores=True, bias=bias,
                            temperature=0.5)
    a = cache.add()
    keys = rng.standard_normal((L, 1, 30, D), dtype=np.float32)
    scores = rng.standard_normal((L, 1, 30, D), dtype=np.float32)
    cache.append([a], keys, scores)
    check_select(cache, [a], rng)
    # The pages equal one compress_paged of the tokens with the same pooling.
    module = indexpool.ops.compress_paged((-1, D), "f32", pool_size=P,
                                          page_entries=E,
                                          per_channel_scores=True,
                                          bias="channel", temperature=0.5)
    compress = indexpool.compile(module, threads=1)
    groups = 30 // P
    table = cache.block_table(a)
    slots = np.array([table[g // E] * E + g % E for g in range(groups)],
                     dtype=np.int64)
    for layer in range(L):
        expected = np.zeros_like(cache.pages(layer))
        compress(keys[layer, 0, :groups * P], scores[layer, 0, :groups * P],
                 bias, expected, slots, out=(expected,))
        for g in range(groups):
            page, entry = table[g // E], g % E
            got, want = cache.pages(layer)[page], expected[page]
            codes = slice(entry * D, (entry + 1) * D)
            scale = slice(E * D + 4 * entry, E * D + 4 * entry + 4)
            np.testing.assert_array_equal(got[codes], want[codes])
            np.testing.assert_array_equal(got[scale], want[scale])
    with pytest.raises(indexpool.IndexPoolError, match=r"scores must have "
                       r"shape \(layers, batch, new tokens, D\)"):
        cache.append([a], keys, scores[..., 0])
    cache.snapshot(str(tmp_path / "pooled"))
    restored, _ = indexpool.Cache.restore(str(tmp_path / "pooled"), threads=2)
    assert restored.per_channel_scores and restored.temperature == 0.5
    np.testing.assert_array_equal(restored.bias, bias)
    np.testing.assert_array_equal(restored.pages(0), cache.pages(0))


@pytest.mark.parametrize("token_tier,pages", [("device", 64), ("host", 5)])
def test_a_token_tier_refines_the_selection(rng, tmp_path, token_tier, pages):
    """refine=2: every append writes each token's own entry too (the token
    tier equals one compress_paged pool_size=1 of the history, P x E tokens
    a page under the pooled pages' ids), and a select is select_paged of
    2 x k entries (checked by the reference) then refine_paged over its
    candidates on the token tier (checked by the reference), still
    (batch, k * P + P - 1) tokens. A snapshot keeps the tier. With
    token_tier='host' the token tier stays in host memory while the pools
    go through a device tier of 5 pages and a host tier."""
    C = 2
    cache = indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                            pages=pages, host_pages=64 - pages, heads=H, k=K,
                            threads=2, refine=C, token_tier=token_tier)
    assert cache.refine == C and cache.token_tier == token_tier
    history = {}

    def append(sequences, n):
        keys = rng.standard_normal((L, len(sequences), n, D), dtype=np.float32)
        scores = rng.standard_normal((L, len(sequences), n), dtype=np.float32)
        cache.append(sequences, keys, scores)
        for b, s in enumerate(sequences):
            k, sc = history.get(s, (np.zeros((L, 0, D), np.float32),
                                    np.zeros((L, 0), np.float32)))
            history[s] = (np.concatenate([k, keys[:, b]], axis=1),
                          np.concatenate([sc, scores[:, b]], axis=1))

    a, b = cache.add(), cache.add()
    append([a, b], 7)
    append([a], 17)                     # a: 24 tokens, b: 7
    c = cache.fork(a)
    history[c] = history[a]
    append([c, b, a], 5)                # c copies the half page, both tiers
    assert cache.block_table(c)[1] != cache.block_table(a)[1]
    cache.free(a)
    del history[a]
    append([b, c], 4)
    if token_tier == "host":
        append([cache.add()], 48)  # 3 more pages: other pools go to host

    tier_entries = P * E
    assert cache.token_pages(0).shape == (64, tier_entries * (D + 4))
    compress = indexpool.compile(indexpool.ops.compress_paged(
        (-1, D), "f32", pool_size=1, page_entries=tier_entries), threads=1)
    for s, (keys, scores) in history.items():
        n, table = cache.length(s), cache.block_table(s)
        assert keys.shape[1] == n and len(table) * tier_entries >= n
        slots = np.array([table[t // tier_entries] * tier_entries
                          + t % tier_entries for t in range(n)], np.int64)
        for layer in range(L):
            got = cache.token_pages(layer)
            want = np.zeros_like(got)
            compress(keys[layer], scores[layer], want, slots, out=(want,))
            for t in range(n):
                page, entry = table[t // tier_entries], t % tier_entries
                codes = slice(entry * D, (entry + 1) * D)
                scale = slice(tier_entries * D + 4 * entry,
                              tier_entries * D + 4 * entry + 4)
                np.testing.assert_array_equal(got[page, codes],
                                              want[page, codes])
                np.testing.assert_array_equal(got[page, scale],
                                              want[page, scale])

    first = indexpool.ops.select_paged((-1, 1, H, D), "f32", k=C * K,
                                       pool_size=P, page_entries=E)
    candidates_of = indexpool.compile(first, threads=1)
    width_c = C * K * P + P - 1
    second = indexpool.ops.refine_paged((-1, 1, H, D), "f32", k=K * P + P - 1,
                                        candidates=width_c,
                                        page_entries=tier_entries)
    sequences = [c, b]
    width = max(-(-C * K // E), max(len(cache.block_table(s))
                                    for s in sequences))
    table = np.zeros((2, width), dtype=np.int32)
    for row, s in enumerate(sequences):
        table[row, :len(cache.block_table(s))] = cache.block_table(s)
    lengths = np.array([[cache.length(s)] for s in sequences], np.int32)
    for layer in range(L):
        q = rng.standard_normal((2, H, D), dtype=np.float32)
        w = rng.standard_normal((2, H), dtype=np.float32)
        tokens = cache.select(sequences, layer, q, w)
        assert tokens.shape == (2, K * P + P - 1)
        inputs = (q[:, None], w[:, None], cache.pages(layer), table, lengths)
        candidates = candidates_of(*inputs)
        assert candidates.shape == (2, 1, width_c)
        report = indexpool.verify(first, "select_paged", inputs, (candidates,))
        assert all(line.endswith("-> ok") for line in report), report
        report = indexpool.verify(
            second, "refine_paged",
            (q[:, None], w[:, None], candidates, cache.token_pages(layer),
             table, lengths), (tokens[:, None],))
        assert all(line.endswith("-> ok") for line in report), report
        for row in range(2):
            kept = tokens[row][tokens[row] >= 0]
            assert len(set(kept.tolist())) == len(kept)
            assert set(kept.tolist()) <= set(candidates[row, 0].tolist())

    if token_tier == "host":
        moved = cache.residency()["tiers"][1]
        assert moved["pages_in"] > 0, moved  # the pools went down and back
    cache.snapshot(str(tmp_path / "refine"))
    # Either placement restores either's snapshot (the file holds pages).
    other = "device" if token_tier == "host" else "host"
    restored, _ = indexpool.Cache.restore(str(tmp_path / "refine"), threads=2,
                                          token_tier=other)
    assert restored.refine == C and restored.token_tier == other
    for layer in range(L):
        np.testing.assert_array_equal(restored.token_pages(layer),
                                      cache.token_pages(layer))
        np.testing.assert_array_equal(restored.pages(layer),
                                      cache.pages(layer))
    with pytest.raises(indexpool.IndexPoolError, match="no token tier"):
        make_cache().token_pages(0)
    with pytest.raises(indexpool.IndexPoolError,
                       match="tokenTier is device or host, got 'gpu'"):
        indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                        pages=64, heads=H, k=K, refine=C, token_tier="gpu")
    with pytest.raises(indexpool.IndexPoolError, match="refine is 0 \\(off\\)"):
        indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                        pages=64, heads=H, k=K, refine=-1)


FAKE_CUDA = os.environ.get("INDEXPOOL_TEST_FAKE_CUDA")


@pytest.mark.skipif(not FAKE_CUDA, reason="needs INDEXPOOL_TEST_FAKE_CUDA "
                    "(ctest): the fake CUDA driver")
def test_the_cuda_backend_on_the_fake_driver(monkeypatch, rng, tmp_path):
    """device="cuda": the kernels compile for the device's chip and run
    through the CUDA runtime, the pages live in its memory. The fake
    driver's kernels compute nothing, so this checks the plumbing (shapes,
    tiers, snapshots through device memory), not the numbers (a GPU does:
    bench/gpu/run-on-device.sh)."""
    monkeypatch.setenv("INDEXPOOL_LIBCUDA_PATH", FAKE_CUDA)
    monkeypatch.setenv("INDEXPOOL_FAKE_CUDA_ANY_KERNEL", "1")
    cache = indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                            pages=4, heads=H, k=K, host_pages=8,
                            device="cuda")
    assert cache.device == "cuda:0"
    seqs = [cache.add() for _ in range(3)]
    for s in seqs:
        step(cache, [s], 40, rng)
    q = rng.standard_normal((1, H, D), dtype=np.float32)
    w = rng.standard_normal((1, H), dtype=np.float32)
    for s in seqs:
        assert cache.select([s], 1, q, w).shape == (1, K * P + P - 1)
    assert cache.residency()["misses"] > 0
    cache.snapshot(str(tmp_path / "gpu"))
    restored, _ = indexpool.Cache.restore(str(tmp_path / "gpu"), host_pages=8,
                                          device="cuda:0")
    assert restored.device == "cuda:0"
    for layer in range(L):
        np.testing.assert_array_equal(restored.pages(layer), cache.pages(layer))
    for bad in ("gpu", "cuda:", "cuda:x", "cuda0"):
        with pytest.raises(indexpool.IndexPoolError,
                           match="device must be 'cpu', 'cuda' or 'cuda:N'"):
            indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                            pages=4, heads=H, k=K, device=bad)
    # The token tier's kernels load too (the fake kernels write nothing).
    refined = indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                              pages=4, heads=H, k=K, device="cuda", refine=2)
    s = refined.add()
    refined.append([s], np.ones((L, 1, P * E, D), np.float32),
                   np.ones((L, 1, P * E), np.float32))
    assert refined.select([s], 0, np.ones((1, H, D), np.float32),
                          np.ones((1, H), np.float32)).shape == \
        (1, K * P + P - 1)
    with pytest.raises(indexpool.IndexPoolError, match="no CUDA device 3"):
        indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                        pages=4, heads=H, k=K, device="cuda:3")
