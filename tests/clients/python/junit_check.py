"""Reads a JUnit XML report with junitparser (as a CI test reporter would) and prints what it
found as JSON: per suite its name, counts and time, per case its name, classname, time and
results (kind, message, type). Used by tests/it/cli/scenarios.rs on `axgate test --junit`.

Usage: junit_check.py REPORT.xml
"""

import json
import sys

from junitparser import JUnitXml


def main() -> None:
    xml = JUnitXml.fromfile(sys.argv[1])
    suites = []
    for suite in xml:
        cases = []
        for case in suite:
            results = [
                {"kind": type(r).__name__, "message": r.message, "type": r.type}
                for r in case.result
            ]
            cases.append(
                {
                    "name": case.name,
                    "classname": case.classname,
                    "time": case.time,
                    "results": results,
                    "system_out": case.system_out,
                }
            )
        suites.append(
            {
                "name": suite.name,
                "tests": suite.tests,
                "failures": suite.failures,
                "errors": suite.errors,
                "time": suite.time,
                "cases": cases,
            }
        )
    print(json.dumps({"tests": xml.tests, "failures": xml.failures, "suites": suites}))


if __name__ == "__main__":
    main()
