"""Checks the composite action deploy/github-actions/action.yml, which actionlint does not
read: it parses as YAML; it is a composite action whose every `run` step names its shell and
runs a script that exists beside it; every input it reads is declared, every declared input
is read, and every output comes from a step that exists. Exits 1 naming each problem."""

import pathlib
import re
import sys

import yaml

ACTION = pathlib.Path("deploy/github-actions/action.yml")


def main() -> int:
    problems = []
    action = yaml.safe_load(ACTION.read_text())
    runs = action.get("runs", {})
    if runs.get("using") != "composite":
        problems.append("runs.using is not 'composite'")
    for key in ("name", "description", "inputs", "outputs"):
        if key not in action:
            problems.append(f"no top-level '{key}'")
    inputs = set(action.get("inputs", {}))
    steps = runs.get("steps", [])
    ids = {step.get("id") for step in steps if step.get("id")}
    text = ACTION.read_text()
    used = set(re.findall(r"inputs\.([A-Za-z0-9_-]+)", text))
    for name in sorted(used - inputs):
        problems.append(f"inputs.{name} is read but not declared")
    for name in sorted(inputs - used):
        problems.append(f"input '{name}' is declared but never read")
    for name, spec in action.get("inputs", {}).items():
        if "description" not in spec:
            problems.append(f"input '{name}' has no description")
    for index, step in enumerate(steps):
        where = f"step {index + 1} ({step.get('name', '?')})"
        if "run" in step:
            if "shell" not in step:
                problems.append(f"{where}: a run step without 'shell'")
            for script in re.findall(r'\$GITHUB_ACTION_PATH/([A-Za-z0-9_.-]+)', step["run"]):
                if not (ACTION.parent / script).is_file():
                    problems.append(f"{where}: runs {script}, which is not beside action.yml")
        elif "uses" not in step:
            problems.append(f"{where}: neither run nor uses")
    for name, spec in action.get("outputs", {}).items():
        for step_id in re.findall(r"steps\.([A-Za-z0-9_-]+)\.outputs", str(spec.get("value", ""))):
            if step_id not in ids:
                problems.append(f"output '{name}' reads step '{step_id}', which does not exist")
    for problem in problems:
        print(f"{ACTION}: {problem}", file=sys.stderr)
    if not problems:
        print(f"{ACTION}: composite action, {len(steps)} steps, {len(inputs)} inputs: clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
