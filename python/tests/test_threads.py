"""Concurrent use from Python threads: one compiled Function called from
several threads at once (each call its own arguments and results), one
indexpool.Cache used from several threads (each call takes the cache's
lock). Every result is checked against the same call made alone."""

import threading

import numpy as np

from conftest import compress_inputs

THREADS, CALLS = 4, 25


def run_threads(work):
    errors = []

    def guarded(i):
        try:
            work(i)
        except BaseException as error:  # reported in the main thread
            errors.append(error)

    threads = [threading.Thread(target=guarded, args=(i,))
               for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def test_one_function_called_from_many_threads(rng, compress_text_function):
    # Each thread its own sizes, so a result that crossed threads shows.
    inputs = [compress_inputs(rng, 64 * (i + 1), 64) for i in range(THREADS)]
    alone = [compress_text_function(*args) for args in inputs]
    into = [[np.empty_like(r) for r in results] for results in alone]

    def work(i):
        for call in range(CALLS):
            if call % 2:
                results = compress_text_function(*inputs[i])
            else:
                results = compress_text_function(*inputs[i], out=into[i])
            for got, expected in zip(results, alone[i]):
                np.testing.assert_array_equal(got, expected)

    run_threads(work)


def test_one_cache_used_from_many_threads(rng):
    import indexpool
    if indexpool.Cache is None:
        import pytest
        pytest.skip("built without the cache runtime")
    from test_cache import H, D, L, check_select, make_cache

    cache = make_cache()
    seeds = rng.integers(0, 2**31, size=THREADS)
    kept = [None] * THREADS

    def work(i):
        local = np.random.default_rng(seeds[i])
        mine = [cache.add(), cache.add()]
        tokens = 0
        for call in range(CALLS):
            n = int(local.integers(1, 6))
            keys = local.standard_normal((L, 2, n, D), dtype=np.float32)
            scores = local.standard_normal((L, 2, n), dtype=np.float32)
            cache.append(mine, keys, scores)
            tokens += n
            q = local.standard_normal((2, H, D), dtype=np.float32)
            w = local.standard_normal((2, H), dtype=np.float32)
            cache.select(mine, call % L, q, w)
            child = cache.fork(mine[0])
            assert cache.length(child) == tokens
            cache.free(child)
            cache.residency()
        assert [cache.length(s) for s in mine] == [tokens, tokens]
        kept[i] = mine

    run_threads(work)
    # Every sequence's pages still select as the reference does.
    check_select(cache, [s for mine in kept for s in mine], rng)
