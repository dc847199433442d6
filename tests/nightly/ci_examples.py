#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CI examples of docs/ci, checked: every file there is a known example and is described in
docs/ci/README.md; the YAML files parse (PyYAML, strictly: no duplicate keys), the batch script
passes `bash -n`, nightly.conf loads with tools/nightly.py's own loader, and each example names
the commands and variables the docs promise (nightly.py shard with --auto or --index/--count,
nightly.py publish, the engine's variables, shard counts that agree, and no push of a growing
history). --self-test then damages copies (a missing variable, broken YAML, a shell syntax
error, a history push, counts that disagree, an unknown file, an undocumented example, a bad
config key) and requires the check to refuse each with the reason.

Usage: ci_examples.py SOURCE_DIR [--self-test]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
try:
    import yaml
except ImportError:  # python3-yaml (tools/setup.sh)
    print(("FAIL" if os.environ.get("CI") == "true" else "skip") + ": no PyYAML in "
          f"{sys.executable} (tools/setup.sh installs python3-yaml)")
    sys.exit(1 if os.environ.get("CI") == "true" else 77)


class StrictLoader(yaml.SafeLoader):
    """safe_load that refuses a key given twice in one mapping (PyYAML keeps the last)."""


def _mapping(loader, node, deep=False):
    keys = set()
    for k, _ in node.value:
        key = loader.construct_object(k, deep=deep)
        if key in keys:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}",
                                                    k.start_mark)
        keys.add(key)
    return loader.construct_mapping(node, deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def load_yaml(path, problems):
    """The documents of a YAML file, or None with a problem."""
    try:
        with open(path, encoding="utf-8") as f:
            docs = [d for d in yaml.load_all(f, Loader=StrictLoader) if d is not None]
    except (OSError, yaml.YAMLError) as e:
        problems.append(f"{os.path.basename(path)}: does not parse: {str(e).splitlines()[0]}")
        return None
    if not docs or not all(isinstance(d, dict) for d in docs):
        problems.append(f"{os.path.basename(path)}: not a YAML mapping")
        return None
    return docs


def texts(node):
    """Every string under a parsed YAML node (the commands of jobs and steps)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from texts(v)
    elif isinstance(node, list):
        for v in node:
            yield from texts(v)


def need(name, text, patterns, problems):
    """Each (description, regex) of patterns must match text."""
    for what, rx in patterns:
        if re.search(rx, text) is None:
            problems.append(f"{name}: does not name {what}")


def check_github(path, problems):
    docs = load_yaml(path, problems)
    if docs is None:
        return
    wf = docs[0]
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
    if not isinstance(on, dict) or "schedule" not in on:
        problems.append("github-actions.yml: no schedule (on: schedule)")
    jobs = wf.get("jobs") or {}
    shard, publish = jobs.get("shard") or {}, jobs.get("publish") or {}
    matrix = ((shard.get("strategy") or {}).get("matrix") or {}).get("shard")
    shard_text, publish_text = "\n".join(texts(shard)), "\n".join(texts(publish))
    need("github-actions.yml shard job", shard_text,
         [("nightly.py shard", r"nightly\.py shard"),
          ("--index ${{ matrix.shard }}", r"--index \$\{\{ matrix\.shard \}\}")], problems)
    m = re.search(r"--count (\d+)", shard_text)
    if not isinstance(matrix, list) or m is None or matrix != list(range(1, int(m.group(1)) + 1)):
        problems.append(f"github-actions.yml: the matrix {matrix} is not shards 1..--count "
                        f"({m.group(1) if m else 'no --count'})")
    if publish.get("needs") != "shard":
        problems.append("github-actions.yml: the publish job does not need the shard job")
    need("github-actions.yml publish job", publish_text,
         [("nightly.py publish --results", r"nightly\.py publish[\s\S]*--results"),
          ("a push of one fresh commit (rm -rf .git, then git init)",
           r"rm -rf \.git[^\n]*\n(.*\n)*?\s*git init"),
          ("git push -f to gh-pages", r"git push -f [^\n]* HEAD:gh-pages")], problems)


def check_gitlab(path, problems):
    docs = load_yaml(path, problems)
    if docs is None:
        return
    ci = docs[0]
    shard, pages = ci.get("shard") or {}, ci.get("pages") or {}
    if not isinstance(shard.get("parallel"), int) or shard["parallel"] < 2:
        problems.append("gitlab-ci.yml: the shard job has no parallel: N")
    need("gitlab-ci.yml shard job", "\n".join(texts(shard)),
         [("nightly.py shard", r"nightly\.py shard"), ("CI_NODE_INDEX", r"\$CI_NODE_INDEX\b"),
          ("CI_NODE_TOTAL", r"\$CI_NODE_TOTAL\b")], problems)
    need("gitlab-ci.yml pages job", "\n".join(texts(pages)),
         [("nightly.py publish --results", r"nightly\.py publish[\s\S]*--results"),
          ("--site public", r"--site public\b")], problems)
    if "public" not in ((pages.get("artifacts") or {}).get("paths") or []):
        problems.append("gitlab-ci.yml: the pages job does not keep public/ as its artifact")


def check_k8s(path, problems):
    docs = load_yaml(path, problems)
    if docs is None:
        return
    jobs = {(d.get("metadata") or {}).get("labels", {}).get("step"): d for d in docs}
    shards, publish = jobs.get("shards") or {}, jobs.get("publish") or {}
    spec = shards.get("spec") or {}
    if spec.get("completionMode") != "Indexed":
        problems.append("k8s-indexed-job.yaml: the shards Job is not an Indexed Job")
    text = "\n".join(texts(shards))
    need("k8s-indexed-job.yaml shards Job", text,
         [("nightly.py shard", r"nightly\.py shard"),
          ("JOB_COMPLETION_INDEX", r"\$\(?\(?JOB_COMPLETION_INDEX\b")], problems)
    m = re.search(r"--count (\d+)", text) or re.search(r"BITCTS_SHARD_COUNT\D+(\d+)", text)
    if m is None or int(m.group(1)) != spec.get("completions"):
        problems.append(f"k8s-indexed-job.yaml: completions {spec.get('completions')} is not the "
                        f"shard count ({m.group(1) if m else 'none given'})")
    need("k8s-indexed-job.yaml publish Job", "\n".join(texts(publish)),
         [("nightly.py publish --results", r"nightly\.py publish[\s\S]*--results")], problems)


def check_slurm(path, problems):
    rc = subprocess.run(["bash", "-n", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        check=False)
    if rc.returncode != 0:
        problems.append(f"slurm-nightly.sbatch: bash -n: {rc.stdout.decode().strip()[:200]}")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    need("slurm-nightly.sbatch", text,
         [("#SBATCH directives", r"(?m)^#SBATCH --"),
          ("sbatch --array", r"sbatch [^\n]*--array=\d+-\d+"),
          ("the publish step after the array (--dependency=afterany)",
           r"sbatch [^\n]*--dependency=afterany:"),
          ("nightly.py shard --auto", r"nightly\.py shard [^\n]*(\\\n[^\n]*)*--auto"),
          ("SLURM_ARRAY_TASK_ID", r"\$\{?SLURM_ARRAY_TASK_ID\b"),
          ("nightly.py publish --results", r"nightly\.py publish [^\n]*(\\\n[^\n]*)*--results"),
          ("NIGHT", r"\$\{?NIGHT\b")], problems)


def check_conf(path, tools, problems):
    sys.path.insert(0, tools)
    try:
        import nightly  # noqa: E402  (the loader the examples' config meets)
        nightly.load_config(path)
    except nightly.UsageError as e:
        problems.append(f"nightly.conf: {e}")
    finally:
        sys.path.remove(tools)


EXAMPLES = {"github-actions.yml": check_github, "gitlab-ci.yml": check_gitlab,
            "k8s-indexed-job.yaml": check_k8s, "slurm-nightly.sbatch": check_slurm}
ENGINES = {"github-actions.yml": "GitHub", "gitlab-ci.yml": "GitLab",
           "k8s-indexed-job.yaml": "Kubernetes", "slurm-nightly.sbatch": "Slurm"}


def check(docs, tools):
    """Every problem of docs/ci (docs: the docs folder); [] when the examples keep their word."""
    ci, problems = os.path.join(docs, "ci"), []
    with open(os.path.join(ci, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    with open(os.path.join(docs, "nightly.md"), encoding="utf-8") as f:
        nightly_md = f.read()
    for name in sorted(os.listdir(ci)):
        path = os.path.join(ci, name)
        if name in EXAMPLES:
            EXAMPLES[name](path, problems)
            if f"**{name}**" not in readme:
                problems.append(f"{name}: not described in docs/ci/README.md")
            if ENGINES[name] not in nightly_md:
                problems.append(f"{name}: docs/nightly.md does not name {ENGINES[name]}")
        elif name == "nightly.conf":
            check_conf(path, tools, problems)
        elif name == "cdash.md":  # prose: CTest and CDash for vendors, linked from the README
            if "cdash.md" not in readme:
                problems.append("cdash.md: not linked from docs/ci/README.md")
        elif name != "README.md":
            problems.append(f"{name}: not a known example (add its check to ci_examples.py)")
    for name in EXAMPLES:
        if not os.path.isfile(os.path.join(ci, name)):
            problems.append(f"{name}: missing from docs/ci")
        else:
            with open(os.path.join(ci, name), encoding="utf-8") as f:
                text = f.read()
            if re.search(r"git push", text) and "rm -rf .git" not in text:
                problems.append(f"{name}: pushes the site with its whole git history")
    return problems


def damage(docs, name, old, new):
    """Replaces every old by new in docs/ci/NAME (or docs/NAME); old must be there."""
    path = os.path.join(docs, "ci", name)
    if not os.path.exists(path):
        path = os.path.join(docs, name)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert old in text, f"self-test: {old!r} is not in {name}"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))


DAMAGES = [  # (what, file, old, new, a word the refusal must say)
    ("the Slurm variable", "slurm-nightly.sbatch", "SLURM_ARRAY_TASK_ID", "SLURM_JOB_ID",
     "SLURM_ARRAY_TASK_ID"),
    ("--auto", "slurm-nightly.sbatch", "--auto", "", "--auto"),
    ("shell syntax", "slurm-nightly.sbatch", "\nfi\n", "\n", "bash -n"),
    ("broken YAML", "gitlab-ci.yml", "parallel: 4", "parallel: [4", "does not parse"),
    ("a duplicate key", "gitlab-ci.yml", "  parallel: 4\n", "  parallel: 4\n  parallel: 2\n",
     "duplicate key"),
    ("a GitLab variable", "gitlab-ci.yml", '--count "$CI_NODE_TOTAL"', '--count 4',
     "CI_NODE_TOTAL"),
    ("the Kubernetes index", "k8s-indexed-job.yaml", "JOB_COMPLETION_INDEX", "POD_INDEX",
     "JOB_COMPLETION_INDEX"),
    ("counts that disagree", "k8s-indexed-job.yaml", "--count 16", "--count 8", "completions"),
    ("a history push", "github-actions.yml", "rm -rf .git", "true", "whole git history"),
    ("the matrix", "github-actions.yml", "shard: [1, 2, 3, 4]", "shard: [1, 2, 3]", "matrix"),
    ("publish", "github-actions.yml", "nightly.py publish", "nightly.py shard", "publish"),
    ("the README", "README.md", "**slurm-nightly.sbatch**", "slurm-nightly.sbatch",
     "not described"),
    ("nightly.md", "nightly.md", "Slurm", "an engine", "does not name Slurm"),
    ("a config key", "nightly.conf", "keep_reports = 7", "keep_report = 7", "unknown key"),
]


def self_test(source):
    tools = os.path.join(source, "tools")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="bitcts-ci-examples-") as tmp:
        for what, name, old, new, word in DAMAGES:
            docs = os.path.join(tmp, "docs")
            shutil.rmtree(docs, ignore_errors=True)
            shutil.copytree(os.path.join(source, "docs", "ci"), os.path.join(docs, "ci"))
            shutil.copy(os.path.join(source, "docs", "nightly.md"), docs)
            damage(docs, name, old, new)
            got = check(docs, tools)
            if not any(word in p for p in got):
                print(f"FAIL: self-test: {what} in {name} was not refused "
                      f"(want '{word}', got {got})")
                failed = 1
            else:
                print(f"refused, as it must be: {what} ({got[0]})")
        with open(os.path.join(docs, "ci", "jenkins.groovy"), "w", encoding="utf-8") as f:
            f.write("pipeline {}\n")
        rc = subprocess.run([sys.executable, __file__, "--docs", docs, source],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        if rc.returncode != 1 or b"jenkins.groovy: not a known example" not in rc.stdout:
            print(f"FAIL: self-test: an unknown file: exit {rc.returncode}, "
                  f"{rc.stdout.decode()[-300:]}")
            failed = 1
    return failed


def main(argv):
    args = argv[1:]
    docs = None
    if len(args) >= 2 and args[0] == "--docs":
        docs, args = args[1], args[2:]
    if len(args) not in (1, 2) or (len(args) == 2 and args[1] != "--self-test"):
        print("usage: ci_examples.py [--docs DIR] SOURCE_DIR [--self-test]", file=sys.stderr)
        return 2
    source = args[0]
    problems = check(docs or os.path.join(source, "docs"), os.path.join(source, "tools"))
    for p in problems:
        print(f"FAIL: {p}")
    if problems:
        return 1
    print(f"docs/ci: {len(EXAMPLES)} examples and nightly.conf keep what the docs promise")
    return self_test(source) if len(args) == 2 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
