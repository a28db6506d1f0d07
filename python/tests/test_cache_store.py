"""indexpool.Cache with a store tier on a real redis-server (skipped, with the
reason, where redis-server is not installed): a subprocess publishes a
sequence of seeded random keys, this process adopts it; its pages equal
byte for byte those of a cache that appended the same keys, and its selects
give the same tokens."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import indexpool

REDIS = shutil.which("redis-server") or (
    "/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK)
    else None)
pytestmark = [
    pytest.mark.skipif(indexpool.Cache is None,
                       reason="built without the cache runtime"),
    pytest.mark.skipif(REDIS is None,
                       reason="redis-server is not installed (apt-get "
                       "install redis-server): the store tier is NOT tested"),
]

L, D, P, E, H, K = 2, 32, 4, 4, 4, 6
SEED, STEPS = 91, (5, 16, 1, 30, 7, 31)  # 90 tokens: 6 pages, a tail of 2


@pytest.fixture
def server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), 0.2) as c:
                c.sendall(b"PING\r\n")
                if c.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            time.sleep(0.02)
    yield f"redis://127.0.0.1:{port}/0"
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def make_cache(url=None, **extra):
    store = dict(store=url, store_pages=40, model="test") if url else {}
    return indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                           pages=6, host_pages=8, heads=H, k=K, threads=2,
                           **store, **extra)


def fill(cache):
    """The seeded keys of STEPS into a new sequence; its id."""
    rng = np.random.default_rng(SEED)
    s = cache.add()
    for n in STEPS:
        keys = rng.standard_normal((L, 1, n, D), dtype=np.float32)
        scores = rng.standard_normal((L, 1, n), dtype=np.float32)
        cache.append([s], keys, scores)
    return s


PUBLISHER = textwrap.dedent("""
    import sys
    sys.path[:0] = [sys.argv[2]]
    import test_cache_store as t
    cache = t.make_cache(sys.argv[1])
    cache.publish(t.fill(cache), "prefix")
""")


def test_a_sequence_published_by_another_process_is_adopted(server):
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([sys.executable, "-c", PUBLISHER, server, here],
                   check=True, env=os.environ.copy(), timeout=120)
    cache = make_cache(server)
    own = cache.add()  # traffic of its own first: other page ids
    rng = np.random.default_rng(3)
    cache.append([own], rng.standard_normal((L, 1, 40, D), dtype=np.float32),
                 rng.standard_normal((L, 1, 40), dtype=np.float32))
    adopted = cache.adopt("prefix")
    assert cache.length(adopted) == 90
    local = make_cache()
    mine = fill(local)
    for layer in range(L):
        ours = cache.pages(layer)[cache.block_table(adopted)[:6]]
        theirs = local.pages(layer)[local.block_table(mine)[:6]]
        assert np.array_equal(ours, theirs)
        q = rng.standard_normal((1, H, D), dtype=np.float32)
        w = rng.standard_normal((1, H), dtype=np.float32)
        assert np.array_equal(cache.select([adopted], layer, q, w),
                              local.select([mine], layer, q, w))
    stats = cache.sharing()
    assert stats["adopted"] == 1 and stats["pages_adopted"] == 6
    print(f"adopt: {stats['adopt_seconds'] * 1e6 / 6:.1f} us a page")
    # Another configuration (here: another model) is refused.
    other = indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                            pages=6, heads=H, k=K, threads=2, store=server,
                            store_pages=8, model="another")
    with pytest.raises(indexpool.IndexPoolError, match="another namespace"):
        other.adopt("prefix")
    with pytest.raises(indexpool.IndexPoolError, match="no shared store"):
        local.adopt("prefix")


def test_the_tiers_list_builds_the_same_cache(server):
    """tiers= names the tiers in one string: a cache made from it adopts
    what a cache made from the keywords published."""
    publisher = make_cache(server)
    publisher.publish(fill(publisher), "listed")
    cache = indexpool.Cache(layers=L, dim=D, pool_size=P, page_entries=E,
                            heads=H, k=K, threads=2, store_pages=40,
                            model="test", tiers=f"device:6,host:8,{server}")
    adopted = cache.adopt("listed")
    mine = fill(publisher)
    rng = np.random.default_rng(5)
    for layer in range(L):
        q = rng.standard_normal((1, H, D), dtype=np.float32)
        w = rng.standard_normal((1, H), dtype=np.float32)
        assert np.array_equal(cache.select([adopted], layer, q, w),
                              publisher.select([mine], layer, q, w))


def test_bad_tier_lists_are_refused_without_the_password():
    common = dict(layers=L, dim=D, pool_size=P, page_entries=E, heads=H,
                  k=K, threads=2)
    with pytest.raises(indexpool.IndexPoolError, match="'host' after 'file'"):
        indexpool.Cache(**common, file_pages=2, tiers="device,file,host:3")
    with pytest.raises(indexpool.IndexPoolError,
                       match="host_pages|hostPages is 8 but the list"):
        indexpool.Cache(**common, host_pages=8, tiers="device:6")
    with pytest.raises(indexpool.IndexPoolError,
                       match="store tier has no pages") as info:
        indexpool.Cache(**common, tiers="device:6,redis://u:hunter2@h:1/0")
    assert "hunter2" not in str(info.value)


def test_a_snapshot_restores_with_a_store_tier(server, tmp_path):
    cache = make_cache(server)
    s = fill(cache)
    path = str(tmp_path / "cache.snapshot")
    cache.snapshot(path, generation=3)
    back, generation = indexpool.Cache.restore(
        path, threads=2, host_pages=8, store=server, store_pages=40,
        model="test")
    assert generation == 3 and back.length(s) == 90
    rng = np.random.default_rng(8)
    for layer in range(L):
        assert np.array_equal(back.pages(layer)[back.block_table(s)[:6]],
                              cache.pages(layer)[cache.block_table(s)[:6]])
        q = rng.standard_normal((1, H, D), dtype=np.float32)
        w = rng.standard_normal((1, H), dtype=np.float32)
        assert np.array_equal(back.select([s], layer, q, w),
                              cache.select([s], layer, q, w))
    # The restored cache shares by content like the original.
    back.publish(s, "restored")
    assert cache.length(cache.adopt("restored")) == 90
    with pytest.raises(indexpool.IndexPoolError, match="both store and"):
        indexpool.Cache.restore(path, host_pages=8, store_pages=40)
