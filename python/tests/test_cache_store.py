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


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port, proc, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), 0.2):
                return True
        except OSError:
            time.sleep(0.02)
    return False


@pytest.fixture
def server():
    port = _free_port()
    proc = subprocess.Popen(
        [REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    assert _wait_for_port(port, proc), "redis-server did not start"
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


STUNNEL = shutil.which("stunnel4") or shutil.which("stunnel")
OPENSSL = shutil.which("openssl")


@pytest.mark.skipif(STUNNEL is None or OPENSSL is None,
                    reason="stunnel4 or openssl is not installed (apt-get "
                    "install stunnel4 openssl): TLS through a tunnel is NOT "
                    "tested")
def test_a_tls_server_through_a_tunnel(tmp_path):
    """Debian's hiredis has no TLS; the documented way is a TLS tunnel on
    the client host. A redis-server that speaks only TLS, a stunnel client
    in front of it checking the server's certificate: caches publish and
    adopt through it, and a plain connection to the TLS port fails with an
    error in bounded time instead of hanging."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "1",
                    "-subj", "/CN=localhost"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=60)
    tls_port, local_port = _free_port(), _free_port()
    server = subprocess.Popen(
        [REDIS, "--port", "0", "--tls-port", str(tls_port), "--bind",
         "127.0.0.1", "--tls-cert-file", str(cert), "--tls-key-file",
         str(key), "--tls-ca-cert-file", str(cert), "--tls-auth-clients",
         "no", "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    config = tmp_path / "stunnel.conf"
    config.write_text(textwrap.dedent(f"""\
        foreground = yes
        pid =
        [redis]
        client = yes
        accept = 127.0.0.1:{local_port}
        connect = 127.0.0.1:{tls_port}
        verifyChain = yes
        CAfile = {cert}
        checkHost = localhost
        """))
    tunnel = subprocess.Popen([STUNNEL, str(config)],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        assert _wait_for_port(tls_port, server), "redis-server (TLS) did not start"
        assert _wait_for_port(local_port, tunnel), "stunnel did not start"
        url = f"redis://127.0.0.1:{local_port}/0"
        publisher = make_cache(url)
        mine = fill(publisher)
        publisher.publish(mine, "over-tls")
        cache = make_cache(url)
        adopted = cache.adopt("over-tls")
        rng = np.random.default_rng(13)
        for layer in range(L):
            q = rng.standard_normal((1, H, D), dtype=np.float32)
            w = rng.standard_normal((1, H), dtype=np.float32)
            assert np.array_equal(cache.select([adopted], layer, q, w),
                                  publisher.select([mine], layer, q, w))
        # Plain text to the TLS port: one error, well before a hang.
        started = time.time()
        with pytest.raises(indexpool.IndexPoolError, match="redis"):
            make_cache(f"redis://127.0.0.1:{tls_port}/0")
        assert time.time() - started < 30
        with pytest.raises(indexpool.IndexPoolError, match="no TLS support"):
            make_cache(f"rediss://127.0.0.1:{tls_port}/0")
    finally:
        for proc in (tunnel, server):
            proc.send_signal(signal.SIGKILL)
            proc.wait()


def test_a_host_token_tier_is_shared_like_any_other(server):
    """A refine cache whose token tier stays on host publishes both tiers;
    a cache that keeps its token tier in the tiers adopts them: the same
    bytes and the same refined tokens."""
    ours = make_cache(server, refine=2, token_tier="host")
    s = fill(ours)
    ours.publish(s, "host-tokens")
    theirs = make_cache(server, refine=2)
    t = theirs.adopt("host-tokens")
    rng = np.random.default_rng(21)
    for layer in range(L):
        np.testing.assert_array_equal(
            theirs.token_pages(layer)[theirs.block_table(t)],
            ours.token_pages(layer)[ours.block_table(s)])
        q = rng.standard_normal((1, H, D), dtype=np.float32)
        w = rng.standard_normal((1, H), dtype=np.float32)
        assert np.array_equal(theirs.select([t], layer, q, w),
                              ours.select([s], layer, q, w))


def test_adopt_shares_pages_and_unpublish_deletes_them(server):
    """An adopt of what this cache published shares its pages; unpublish
    deletes the manifest and, with the last reference, the pages."""
    cache = make_cache(server)
    s = fill(cache)
    cache.publish(s, "mine")
    adopted = cache.adopt("mine")
    assert cache.block_table(adopted) == cache.block_table(s)
    assert cache.sharing()["pages_shared"] == 6
    rng = np.random.default_rng(8)
    for layer in range(L):
        q = rng.standard_normal((1, H, D), dtype=np.float32)
        w = rng.standard_normal((1, H), dtype=np.float32)
        assert np.array_equal(cache.select([adopted], layer, q, w),
                              cache.select([s], layer, q, w))
    cache.unpublish("mine")
    with pytest.raises(indexpool.IndexPoolError, match="no manifest 'mine'"):
        cache.unpublish("mine")
    with pytest.raises(indexpool.IndexPoolError, match="no manifest 'mine'"):
        cache.adopt("mine")
    with pytest.raises(indexpool.IndexPoolError, match="storeHeldPages"):
        make_cache(server, store_held_pages=5)  # below pages (6)
    assert make_cache(server, store_held_pages=7).sharing()["published"] == 0
