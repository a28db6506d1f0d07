"""Checks that bench/gpu/static_report.py's chip table equals the one of
lib/Target/Chips.cpp: the same chips in the same order, and each field the
script holds equal to the C++ entry's, field by field.

usage: check_chip_table.py SOURCE_ROOT
Reads the assignments of Chips.cpp's makeTable() (`h100.smCount = 132;`,
`ChipInfo h100a = h100;`, `chips.push_back(h100);`), with the constants of
Chips.cpp and Chips.h they use.
"""
import importlib.util
import os
import re
import sys


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", text)


def main():
    root = sys.argv[1]
    source = strip_comments(open(os.path.join(root, "lib/Target/Chips.cpp")).read())
    header = strip_comments(open(os.path.join(root, "include/indexpool/Target/Chips.h")).read())
    constants = {}
    for m in re.finditer(r"constexpr\s+\w+\s+(k\w+)\s*=\s*([0-9 *]+);", header + source):
        constants[m.group(1)] = eval(m.group(2), {"__builtins__": {}})

    def value(text):
        text = text.strip()
        if text.startswith('"'):
            return text.strip('"')
        if text in ("true", "false"):
            return text == "true"
        if text in constants:
            return constants[text]
        return int(text)

    body = source[source.index("std::vector<ChipInfo> chips;") + len("std::vector<ChipInfo> chips;"):
                  source.index("return chips;")]
    entries, table = {}, []
    for stmt in body.split(";"):
        stmt = " ".join(stmt.split())
        if m := re.fullmatch(r"ChipInfo (\w+)\{\}", stmt):
            entries[m.group(1)] = {}
        elif m := re.fullmatch(r"ChipInfo (\w+) = (\w+)", stmt):
            entries[m.group(1)] = dict(entries[m.group(2)])
        elif m := re.fullmatch(r"(\w+)\.(\w+) = (.+)", stmt):
            entries[m.group(1)][m.group(2)] = value(m.group(3))
        elif m := re.fullmatch(r"chips\.push_back\((\w+)\)", stmt):
            table.append(dict(entries[m.group(1)]))
        elif stmt:
            sys.exit(f"check_chip_table: cannot read '{stmt}' in Chips.cpp")

    spec = importlib.util.spec_from_file_location(
        "static_report", os.path.join(root, "bench/gpu/static_report.py"))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    cpp_names = [c["name"] for c in table]
    if cpp_names != list(script.CHIPS):
        sys.exit(f"check_chip_table: Chips.cpp has {cpp_names}, "
                 f"static_report.py {list(script.CHIPS)}")
    bad, fields = [], 0
    for cpp in table:
        for field, mine in script.CHIPS[cpp["name"]].items():
            fields += 1
            if field not in cpp:
                bad.append(f"{cpp['name']}.{field}: not in Chips.cpp")
            elif cpp[field] != mine:
                bad.append(f"{cpp['name']}.{field}: Chips.cpp {cpp[field]!r}, "
                           f"static_report.py {mine!r}")
    if bad:
        sys.exit("check_chip_table: " + "; ".join(bad))
    print(f"chip tables agree: {', '.join(cpp_names)} ({fields} fields)")


main()
