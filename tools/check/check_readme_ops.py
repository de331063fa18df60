#!/usr/bin/env python3
"""Checks that README.md's supported-op table is what the registries say (ctest:
Readme.OpTableMatchesTheRegistries), so the table cannot drift from the code.

  python3 tools/check/check_readme_ops.py BUILD/tools/list_kernels/amp-list-kernels README.md

Every row amp-list-kernels prints must be in the README, and the README's table may have no
other op rows (without the CUDA backend, the CUDA column is not compared). Prints the
differences and exits 1.
"""
import subprocess
import sys


def table_rows(lines):
    return [l.strip() for l in lines if l.startswith("| ") and not l.startswith("| op |")]


def cells(row):
    return [c.strip() for c in row.strip("|").split("|")]


def main():
    tool, readme = sys.argv[1], sys.argv[2]
    generated = table_rows(subprocess.check_output([tool], text=True).splitlines())
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    start = text.find("## Supported ops")
    if start < 0:
        print("check_readme_ops: README.md has no '## Supported ops' section")
        return 1
    end = text.find("\n## ", start + 1)
    section = text[start:end if end > 0 else len(text)].splitlines()
    documented = table_rows(section)
    # A build without the CUDA backend prints "-" for every CUDA column: compare the op,
    # color and CPU columns only.
    if all(cells(r)[3] == "-" for r in generated):
        generated = ["|".join(cells(r)[:3]) for r in generated]
        documented = ["|".join(cells(r)[:3]) for r in documented]
    missing = [r for r in generated if r not in documented]
    extra = [r for r in documented if r not in generated]
    for r in missing:
        print("missing from README.md:", r)
    for r in extra:
        print("in README.md but not in the registries:", r)
    print(f"check_readme_ops: {len(missing)} missing, {len(extra)} extra")
    return 1 if missing or extra else 0


if __name__ == "__main__":
    sys.exit(main())
