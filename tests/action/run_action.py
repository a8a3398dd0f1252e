#!/usr/bin/env python3
"""run_action.py: the GitHub Action, run the way a hosted runner runs it.

A hosted runner checks the action out into a directory its unprivileged user owns, and runs each
step of action.yml with bash as that user, who may use sudo. This script does the same on this
machine: it makes an unprivileged user with password-less sudo (as a runner has), copies the
tracked files of this checkout into a directory that user owns, reads action.yml, and runs its
steps in order as that user, with `${{ inputs.* }}` and `${{ github.action_path }}` filled in and
GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files as the runner gives them. The orchestrator is the
reference, on one shard of the catalog. It then checks what a workflow sees: the step's exit
status, the outputs verdict, exit-code and report-dir, the job summary, and the four reports.

Needs root (to make the user) and the Debian packages sudo and python3-yaml, which it installs
through scripts/deps.sh. Not root: prints SKIP and exits 0.

  tests/action/run_action.py [--keep]
"""
import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
USER = "ock-runner"
SUDOERS = "/etc/sudoers.d/ock-runner"


def sh(args, **kw):
    return subprocess.run(args, check=True, **kw)


def ensure_runner_user():
    sh(["sh", os.path.join(ROOT, "scripts", "deps.sh")],
       env={**os.environ, "OCK_PACKAGES": "sudo python3-yaml git"})
    try:
        pwd.getpwnam(USER)
    except KeyError:
        sh(["useradd", "--create-home", "--shell", "/bin/bash", USER])
    with open(SUDOERS, "w") as f:
        f.write(f"{USER} ALL=(ALL) NOPASSWD:ALL\n")
    os.chmod(SUDOERS, 0o440)


def copy_tracked(dest):
    """The tracked files as they are in the working tree, as actions/checkout would lay them."""
    files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True,
                           capture_output=True).stdout.split(b"\0")
    for f in filter(None, files):
        src = os.path.join(ROOT, f.decode())
        if os.path.isfile(src):
            dst = os.path.join(dest, f.decode())
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)


def expand(text, inputs, action_path):
    def one(m):
        expr = m.group(1).strip()
        if expr == "github.action_path":
            return action_path
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs."):]]
        raise SystemExit(f"run_action: action.yml uses ${{{{ {expr} }}}}, which this runner "
                         "does not provide")
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def main():
    if os.geteuid() != 0:
        print("SKIP run_action: needs root to make an unprivileged runner user")
        return 0
    import yaml  # installed by ensure_runner_user (python3-yaml)

    ensure_runner_user()
    top = tempfile.mkdtemp(prefix="ock-action-")
    action_path = os.path.join(top, "_actions", "ock")
    work = os.path.join(top, "work")
    os.makedirs(work)
    copy_tracked(action_path)
    out_file = os.path.join(top, "github_output")
    summary_file = os.path.join(top, "step_summary")
    open(out_file, "w").close()
    open(summary_file, "w").close()
    sh(["chown", "-R", f"{USER}:{USER}", top])
    os.chmod(top, 0o755)

    with open(os.path.join(ROOT, "action.yml")) as f:
        action = yaml.safe_load(f)
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update({
        "orchestrator": f"{action_path}/build/bin/ock-orchestrator",
        "capabilities": "core,streaming,parallel,scheduling,lifecycle,resilience,cancellation",
        "shard": "1/40",
        "name": "reference",
        "output-dir": "reports/ock",
    })
    status = 0
    for i, step in enumerate(action["runs"]["steps"]):
        env = {k: expand(str(v), inputs, action_path) for k, v in step.get("env", {}).items()}
        script = os.path.join(top, f"step{i}.sh")
        with open(script, "w") as f:
            f.write(expand(step["run"], inputs, action_path))
        env_args = [f"{k}={v}" for k, v in {
            **env, "GITHUB_OUTPUT": out_file, "GITHUB_STEP_SUMMARY": summary_file,
            "GITHUB_ACTION_PATH": action_path, "HOME": pwd.getpwnam(USER).pw_dir,
            "PATH": "/usr/local/bin:/usr/bin:/bin"}.items()]
        print(f"run_action: step {i + 1}: {step.get('name', '')}", flush=True)
        r = subprocess.run(["runuser", "-u", USER, "--", "env", "-i", *env_args,
                            "bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                           cwd=work)
        if r.returncode:
            print(f"run_action: FAIL: step {i + 1} ({step.get('name', '')}) exited "
                  f"{r.returncode}")
            status = 1
            break
    outputs = dict(line.split("=", 1) for line in open(out_file).read().splitlines() if "=" in line)
    checks = [
        (status == 0, "every step exited 0"),
        (outputs.get("verdict") == "PASS", f"output verdict is PASS (got {outputs.get('verdict')})"),
        (outputs.get("exit-code") == "0", f"output exit-code is 0 (got {outputs.get('exit-code')})"),
        (os.path.getsize(summary_file) > 0, "the job summary was written"),
    ] + [(os.path.isfile(os.path.join(work, "reports/ock", f)), f"reports/ock/{f} was written")
         for f in ("report.json", "junit.xml", "summary.md", "report.html")]
    failed = [what for ok, what in checks if not ok]
    for what in failed:
        print(f"run_action: FAIL: {what}")
    if "--keep" not in sys.argv:
        shutil.rmtree(top, ignore_errors=True)
    print(f"run_action: {len(checks) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
