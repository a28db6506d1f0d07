#!/usr/bin/env python3
"""ptxas ($CUDA_HOME/bin) on a copy of the PTX without its launch bounds
(.maxntid, .reqntid, .minnctapersm, .maxnreg), which take precedence over
-maxrregcount: gpu-kernel-gate.mlir makes a clean kernel spill with
`--ptxas THIS --ptxas-arg=-maxrregcount=16`. Arguments as ptxas's."""
import os
import re
import subprocess
import sys
import tempfile

ptxas = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
args = sys.argv[1:]
with tempfile.TemporaryDirectory() as tmp:
    for i, arg in enumerate(args):
        if arg.endswith(".ptx"):
            with open(arg) as f:
                ptx = re.sub(r"(?m)^\s*\.(maxntid|reqntid|minnctapersm|maxnreg)\b.*$", "", f.read())
            args[i] = os.path.join(tmp, "unbounded.ptx")
            with open(args[i], "w") as f:
                f.write(ptx)
    sys.exit(subprocess.run([ptxas] + args).returncode)
