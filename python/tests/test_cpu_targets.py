"""The CPU target table from Python: indexpool.cpu_targets() lists the
rows, compile(cpu=NAME) compiles for one this host runs (results checked
against the float64 reference), and a row it cannot run, or a name the
table lacks, is refused with one error naming why."""

import platform

import pytest

import indexpool

from conftest import compress_inputs


def test_the_table_names_the_hosts_row():
    rows = indexpool.cpu_targets()
    names = [row["name"] for row in rows]
    assert len(names) == len(set(names)) and "x86-64-v3" in names
    hosts = [row for row in rows if row["host"]]
    assert len(hosts) == 1 and hosts[0]["runs_here"]
    for row in rows:
        assert row["runs_here"] == (row["why_not"] == "")
        assert row["vector_width"] in (4, 8, 16)
        # The byte tables feed the bf16 pair dot, a 64-byte lookup at a
        # time: only a row with that dot and 16 f32 lanes can take them.
        if row["byte_table"]:
            assert row["bf16_dot"] and row["vector_width"] == 16, row


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86 rows")
def test_every_row_this_host_runs_passes_the_reference(rng,
                                                       compress_text_module):
    inputs = compress_inputs(rng, 96, 64)
    ran = 0
    for row in indexpool.cpu_targets():
        if not row["runs_here"]:
            continue
        function = indexpool.compile(compress_text_module, cpu=row["name"],
                                     threads=1)
        # Raises with the report when a result is out of tolerance.
        report = indexpool.verify(compress_text_module, "compress", inputs,
                                  function(*inputs))
        assert len(report) == 3 and all("-> ok" in line for line in report)
        ran += 1
    assert ran >= 3  # x86-64, x86-64-v3 and the host's at least


def test_rows_the_host_cannot_run_and_unknown_names_are_refused(
        compress_text_module):
    with pytest.raises(indexpool.IndexPoolError,
                       match=r"unknown CPU target 'znver9'; known: .*x86-64"):
        indexpool.compile(compress_text_module, cpu="znver9")
    for row in indexpool.cpu_targets():
        if not row["runs_here"]:
            with pytest.raises(indexpool.IndexPoolError) as info:
                indexpool.compile(compress_text_module, cpu=row["name"])
            assert row["why_not"] in str(info.value)


SCORE_I8 = """
func.func @score(%q: tensor<2x16x64xf32>, %w: tensor<2x16xf32>,
                 %k: tensor<300x64xi8>, %s: tensor<300xf32>)
    -> tensor<2x300xf32> {
  %l = indexpool.score %q, %w, %k scales(%s)
      : (tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<300x64xi8>,
         tensor<300xf32>) -> tensor<2x300xf32>
  return %l : tensor<2x300xf32>
}
"""


def test_int8_query_stays_within_its_documented_bound(rng):
    """compile(int8_query=True): i8 keys against the query quantized per
    head (docs/design.md, "CPU targets"): each logit within
    sum_h |w_h| s (a_h / 2) sum_d |k_d| of the exact one, a = max|q| / 127."""
    host = [row for row in indexpool.cpu_targets() if row["host"]][0]
    if not host["int8_dot"]:
        pytest.skip("the host's CPU target has no int8 dot")
    import numpy as np
    q = rng.standard_normal((2, 16, 64)).astype(np.float32)
    w = rng.standard_normal((2, 16)).astype(np.float32)
    k = rng.integers(-128, 128, (300, 64)).astype(np.int8)
    s = rng.uniform(0.001, 0.02, 300).astype(np.float32)
    quantized = indexpool.compile(SCORE_I8, int8_query=True)(q, w, k, s)
    exact = indexpool.compile(SCORE_I8)(q, w, k, s)
    dots = np.einsum("mhd,nd->mhn", q.astype(np.float64), k.astype(np.float64))
    reference = np.einsum("mh,mhn->mn", w.astype(np.float64),
                          np.maximum(dots * s[None, None, :], 0))
    a = np.abs(q).max(axis=2).astype(np.float64) / 127
    bound = np.einsum("mh,n->mn", np.abs(w) * a / 2,
                      s * np.abs(k.astype(np.float64)).sum(axis=1))
    slack = 1e-5 * np.abs(reference).max()
    assert np.all(np.abs(quantized - reference) <= bound + slack)
    # It took effect: the exact path agrees with the reference far closer.
    assert np.abs(quantized - exact).max() > 10 * np.abs(exact - reference).max()
