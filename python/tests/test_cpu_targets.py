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
