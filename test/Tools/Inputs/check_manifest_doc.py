"""Checks docs/manifest.md against a manifest indexpool-compile wrote: every
key of the manifest is documented (as `key`), and every compute's op, operand
and property names are those of the doc's computes table, with the optional
ones in brackets. Plain Python, so that any python3 runs it.

  check_manifest_doc.py docs/manifest.md [--example=M.json] MANIFEST.json...

With --example, the doc's example (the first json block after "## Example")
must be exactly M.json, the manifest indexpool-compile wrote for it."""
import json
import re
import sys


def keys_of(value, found):
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(key)
            keys_of(item, found)
    elif isinstance(value, list):
        for item in value:
            keys_of(item, found)


def check_example(doc, path):
    section = doc[doc.index("## Example"):]
    block = re.search(r"```json\n(.*?)```", section, re.S).group(1)
    written = json.load(open(path))
    if json.loads(block) != written:
        sys.exit("the doc's example is not what indexpool-compile writes: %s"
                 % path)
    print("example ok")


def main():
    doc = open(sys.argv[1]).read()
    args = sys.argv[2:]
    for arg in [a for a in args if a.startswith("--example=")]:
        check_example(doc, arg[len("--example="):])
        args.remove(arg)
    sys.argv[2:] = args
    # Names the doc writes as code: fenced blocks (the example), then inline
    # `key`, `binary.path`, `{"op": OP, ...}`.
    documented = set()
    fenced = re.compile(r"```.*?```", re.S)
    for block in fenced.findall(doc):
        documented.update(re.findall(r"[a-z_][a-z0-9_]*", block))
    for span in re.findall(r"`([^`]+)`", fenced.sub("", doc)):
        documented.update(re.findall(r"[a-z_][a-z0-9_]*", span))
    # The computes table: | `op` | operands | results | properties |
    table = {}
    for op, operands, results, properties in re.findall(
            r"^\| `([a-z_]+)` \|([^|]*)\|([^|]*)\|([^|]*)\|$", doc,
            re.M):
        split = lambda cell: [n.strip() for n in cell.split(",") if n.strip()]
        table[op] = (split(operands), split(results), split(properties))
    problems = []
    ops_seen = set()
    for path in sys.argv[2:]:
        manifest = json.load(open(path))
        keys = set()
        keys_of({k: v for k, v in manifest.items() if k != "computes"}, keys)
        for compute in manifest.get("computes", []):
            keys.update(compute.keys())
            op = compute["op"]
            ops_seen.add(op)
            if op not in table:
                problems.append("op %s is not in the computes table" % op)
                continue
            operands, results, properties = table[op]
            bare = lambda names: {n.strip("[]") for n in names}
            for name in compute["operands"]:
                if name not in bare(operands):
                    problems.append("%s operand %s is not documented"
                                    % (op, name))
            for name in compute.get("properties", {}):
                if name not in bare(properties):
                    problems.append("%s property %s is not documented"
                                    % (op, name))
            # Every required operand is there; brackets mark optional ones.
            for name in operands:
                if not name.startswith("[") and name not in compute["operands"]:
                    problems.append("%s: the doc says %s is required"
                                    % (op, name))
            if len(compute["results"]) != len(results):
                problems.append("%s has %d results, the doc lists %d"
                                % (op, len(compute["results"]), len(results)))
        for key in sorted(keys - documented):
            problems.append("key %s of %s is not documented" % (key, path))
    for op in sorted(set(table) - ops_seen):
        problems.append("the doc's op %s is in no manifest checked" % op)
    if problems:
        sys.exit("\n".join(problems))
    print("manifest doc ok: %d ops, every key documented" % len(ops_seen))


main()
