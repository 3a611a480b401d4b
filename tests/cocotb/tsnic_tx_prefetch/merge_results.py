#!/usr/bin/env python3
"""Merge cocotb JUnit files of several runs into one: merge_results.py OUT IN[:suffix] ...

Test names get the suffix (e.g. the data width) so both runs show. A missing input file becomes a
failed test case, so a run that did not finish is never hidden.
"""
import sys
import xml.etree.ElementTree as ET

out = sys.argv[1]
root = ET.Element("testsuites", name="results")
for arg in sys.argv[2:]:
    path, _, suffix = arg.partition(":")
    suite = ET.SubElement(root, "testsuite", name=f"all_{suffix}" if suffix else "all")
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError) as e:
        case = ET.SubElement(suite, "testcase", name=f"run_{suffix or path}", classname="merge")
        ET.SubElement(case, "failure", message=f"no results from {path}: {e}")
        continue
    for case in tree.getroot().iter("testcase"):
        if suffix:
            case.set("name", f"{case.get('name')}[{suffix}]")
        suite.append(case)
ET.ElementTree(root).write(out)
