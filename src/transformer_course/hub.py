"""course-hub: run the course for a class on one machine, with JupyterHub and nbgrader's exchange.

    make hub ROSTER=students.csv                  # = python -m transformer_course.hub start ...
    python -m transformer_course.hub accounts students.csv    # accounts only, then exit

``start`` makes the accounts from the roster (nbgrader's roster format:
``id,first_name,last_name,email``; ``id`` is the login name), the instructor's course
directory (a copy of this repository in the instructor's home, with its gradebook),
nbgrader's exchange, and the settings ``hub/jupyterhub_config.py`` reads, then runs
JupyterHub in the foreground (Ctrl+C stops it). Passwords of the accounts it creates
are written to ``<state>/passwords.csv`` (readable by root only); existing accounts
keep theirs.

Run as root, users are real Unix accounts (``useradd``; JupyterHub's PAMAuthenticator
and LocalProcessSpawner). Otherwise (``--accounts shared``, the default when not root)
every user runs in this one account: a trial, with no isolation.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

from transformer_course.paths import REPO

COURSE_ID = "build-a-transformer"  # as autograde/nbgrader_config.py names it
CONFIG = REPO / "hub" / "jupyterhub_config.py"
PROXY = Path(sys.prefix) / "hub-proxy" / "node_modules" / ".bin" / "configurable-http-proxy"
DEFAULT_STATE = Path("/srv/course-hub")
DEFAULT_EXCHANGE = Path("/srv/nbgrader/exchange")  # nbgrader's default Exchange.root


def read_roster(path: Path) -> list[str]:
    """Student ids from nbgrader's roster CSV, checked to be valid login names."""
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    ids = [row["id"].strip() for row in rows if row.get("id", "").strip()]
    for sid in ids:
        if not (sid[0].isalpha() and sid.replace("_", "").replace("-", "").isalnum()):
            raise SystemExit(f"{path}: {sid!r} is not a valid login name (letters, digits, - _)")
        if len(sid) > 32 or sid != sid.lower():
            raise SystemExit(f"{path}: {sid!r}: login names are lower case, 32 characters at most")
    return ids


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------------------------ accounts
def ensure_account(name: str, passwords: dict[str, str]) -> pwd.struct_passwd:
    """A Unix account with a home only it can read; a new one gets a random password."""
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", name], check=True)
        password = secrets.token_urlsafe(12)
        subprocess.run(["chpasswd"], input=f"{name}:{password}\n", text=True, check=True)
        passwords[name] = password
        entry = pwd.getpwnam(name)
    os.chmod(entry.pw_dir, 0o700)
    return entry


def _read_passwords(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        return {row["user"]: row["password"] for row in csv.DictReader(f)}


def _write_passwords(path: Path, passwords: dict[str, str]) -> None:
    path.touch(mode=0o600)
    os.chmod(path, 0o600)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["user", "password"])
        writer.writerows(sorted(passwords.items()))


def as_user(user: str | None, argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run ``argv`` as ``user`` (its uid, gid and groups; HOME and cwd its home), or as
    this process when ``user`` is None (the shared-account fallback)."""
    env = dict(kwargs.pop("env", None) or os.environ)
    if user is None:
        return subprocess.run(argv, env=env, **kwargs)
    entry = pwd.getpwnam(user)
    env.update(HOME=entry.pw_dir, USER=user, LOGNAME=user)
    if kwargs.get("cwd") is None:
        kwargs["cwd"] = entry.pw_dir
    return subprocess.run(
        argv,
        env=env,
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=os.getgrouplist(user, entry.pw_gid),
        **kwargs,
    )


# --------------------------------------------------------------- the environment's reach
def blocked_ancestors(paths: list[Path]) -> list[Path]:
    """Folders on the way to ``paths`` that other accounts cannot pass through (no o+x)."""
    blocked: list[Path] = []
    for path in paths:
        for folder in [*reversed(path.resolve().parents)]:
            if not folder.stat().st_mode & stat.S_IXOTH and folder not in blocked:
                blocked.append(folder)
    return blocked


def environment_paths() -> list[Path]:
    """What every user's server runs: the interpreter (through its links), the
    environment and the course's package."""
    python = Path(sys.executable)
    return [python.resolve(), Path(sys.prefix) / "bin", REPO / "src", REPO / "jupyter-config"]


# ------------------------------------------------------------------------ course folders
def _not_copied(directory: str, names: list[str]) -> set[str]:
    skip = {".git", ".venv", "test-artifacts", "build", "dist", "__pycache__"}
    skip |= {n for n in names if n.endswith((".egg-info", "_cache")) or n == ".ipynb_checkpoints"}
    if Path(directory).name == "autograde":
        skip |= {"submitted", "autograded", "feedback", "gradebook.db", "grades.csv"}
    return skip & set(names)


def make_course_dir(owner: pwd.struct_passwd | None, course_dir: Path) -> None:
    """The instructor's course directory: a copy of this repository (nbgrader's course
    layout: source = solutions/, release = notebooks/), owned by the instructor."""
    if not course_dir.exists():
        shutil.copytree(REPO, course_dir, ignore=_not_copied, symlinks=True)
    if owner is not None:
        for path in [course_dir, *course_dir.rglob("*")]:
            os.lchown(path, owner.pw_uid, owner.pw_gid)


def write_jupyter_config(state: Path, course_dir: Path, exchange: Path) -> dict[str, list[str]]:
    """Each role's JUPYTER_CONFIG_PATH: a generated layer with nbgrader's exchange (and,
    for the instructor, the course directory), over the course's own layers."""
    layers = {}
    for role in ("student", "instructor"):
        folder = state / "jupyter-config" / role
        folder.mkdir(parents=True, exist_ok=True)
        lines = [
            "# Written by course-hub (transformer_course/hub.py): nbgrader's exchange on this hub.",
            "c = get_config()  # noqa: F821",
            f"c.CourseDirectory.course_id = {COURSE_ID!r}",
            f"c.Exchange.root = {str(exchange)!r}",
        ]
        if role == "instructor":
            lines += [
                "# The course directory, from wherever nbgrader or the formgrader runs.",
                f"c.CourseDirectory.root = {str(course_dir)!r}",
                f"load_subconfig({str(course_dir / 'autograde' / 'nbgrader_config.py')!r})  # noqa: F821",
                f"c.CourseDirectory.db_url = {'sqlite:///' + str(course_dir / 'autograde' / 'gradebook.db')!r}",
            ]
        (folder / "nbgrader_config.py").write_text("\n".join(lines) + "\n")
        own = [str(folder)]
        if role == "student":
            own.append(str(REPO / "hub" / "jupyter-config" / "student"))
        else:
            own.append(str(REPO / "jupyter-config" / "instructor"))
        layers[role] = [*own, str(REPO / "jupyter-config" / "learner")]
    return layers


# ------------------------------------------------------------------------------- commands
def setup(args: argparse.Namespace) -> dict:
    """Accounts, folders and settings for one hub; returns the settings."""
    unix = args.accounts == "unix"
    if unix and os.geteuid() != 0:
        raise SystemExit("--accounts unix needs root (useradd, and the spawner's setuid)")
    state: Path = args.state.resolve()
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o755)  # users read their generated configuration layer from here
    students = read_roster(args.roster) if args.roster else []
    passwords_file = state / "passwords.csv"
    passwords = _read_passwords(passwords_file)

    if unix:
        instructor = ensure_account(args.instructor, passwords)
        for sid in students:
            ensure_account(sid, passwords)
        _write_passwords(passwords_file, passwords)
        home = Path(instructor.pw_dir)
    else:
        instructor = None
        home = state / "homes" / args.instructor
        for user in [args.instructor, *students]:
            (state / "homes" / user).mkdir(parents=True, exist_ok=True)
    course_dir = home / COURSE_ID
    make_course_dir(instructor, course_dir)

    exchange: Path = args.exchange.resolve()
    exchange.mkdir(parents=True, exist_ok=True)
    os.chmod(exchange, 0o777)  # nbgrader: `chmod ugo+rw` on the exchange root

    if unix:
        blocked = blocked_ancestors([*environment_paths(), state, exchange])
        if blocked and not args.grant_traverse:
            names = ", ".join(str(p) for p in blocked)
            raise SystemExit(
                f"Other accounts cannot reach the course's environment or the hub's folders: "
                f"{names} lack the execute (traverse) bit for others. Install the course "
                f"where every account can read it (e.g. under /opt), or rerun with "
                f"--grant-traverse (adds o+x to those folders, and only while the hub runs)."
            )
        granted = {str(p): stat.S_IMODE(p.stat().st_mode) for p in blocked}
        for path in blocked:
            os.chmod(path, stat.S_IMODE(path.stat().st_mode) | stat.S_IXOTH)
        (state / "granted-traverse.json").write_text(json.dumps(granted))

    roster_rows = state / "roster.csv"
    if args.roster:
        shutil.copy(args.roster, roster_rows)
        os.chmod(roster_rows, 0o600)
    settings = {
        "accounts": args.accounts,
        "ip": args.ip,
        "port": args.port or 8000,
        "hub_port": _free_port(),
        "proxy_api_port": _free_port(),
        "proxy": str(PROXY),
        "state": str(state),
        "instructor": args.instructor,
        "students": students,
        "course_id": COURSE_ID,
        "course_dir": str(course_dir),
        "exchange": str(exchange),
        "python": str(Path(sys.prefix) / "bin" / "python"),
        "jupyter_path": str(Path(sys.prefix) / "share" / "jupyter"),
        "config_path": write_jupyter_config(state, course_dir, exchange),
        "admin_token": secrets.token_hex(24),
        "shared_password": passwords.get("*shared*") or secrets.token_urlsafe(12),
    }
    if not unix:
        passwords["*shared*"] = settings["shared_password"]
        _write_passwords(passwords_file, passwords)
    settings_file = state / "settings.json"
    settings_file.touch(mode=0o600)
    settings_file.write_text(json.dumps(settings, indent=1))
    os.chmod(settings_file, 0o600)

    # The roster into the instructor's gradebook, as nbgrader's documentation does it.
    if args.roster:
        _import_roster(args.instructor if unix else None, roster_rows, settings, course_dir)
    return settings


def _import_roster(instructor: str | None, roster: Path, settings: dict, course_dir: Path) -> None:
    copy = course_dir / "autograde" / "roster.csv"
    shutil.copy(roster, copy)
    if instructor is not None:
        entry = pwd.getpwnam(instructor)
        os.chown(copy, entry.pw_uid, entry.pw_gid)
    nbgrader = str(Path(sys.prefix) / "bin" / "nbgrader")
    result = as_user(
        instructor,
        [nbgrader, "db", "student", "import", str(copy)],
        env=role_env(settings, "instructor"),
        cwd=course_dir,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise SystemExit(f"nbgrader db student import failed:\n{result.stdout}{result.stderr}")


def role_env(settings: dict, role: str) -> dict[str, str]:
    """The environment a user's server (and a CLI run as that user) gets."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "NBGRADER", "COURSE_"))
    }
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(settings["config_path"][role])
    env["JUPYTER_PATH"] = settings["jupyter_path"]
    env["PATH"] = os.pathsep.join([str(Path(settings["python"]).parent), "/usr/bin", "/bin"])
    return env


def restore_traverse(state: Path) -> None:
    granted_file = state / "granted-traverse.json"
    if granted_file.exists():
        for path, mode in json.loads(granted_file.read_text()).items():
            os.chmod(path, mode)
        granted_file.unlink()


def start(args: argparse.Namespace) -> int:
    if not PROXY.exists():
        raise SystemExit(f"{PROXY} is missing: `make install` installs the proxy (needs npm)")
    settings = setup(args)
    state = Path(settings["state"])
    env = dict(os.environ, COURSE_HUB_SETTINGS=str(state / "settings.json"))
    env["PATH"] = os.pathsep.join([str(Path(sys.prefix) / "bin"), env.get("PATH", "")])
    print(
        f"course hub: http://{settings['ip']}:{settings['port']}/ "
        f"(instructor {settings['instructor']}, {len(settings['students'])} students; "
        f"passwords in {state / 'passwords.csv'})",
        flush=True,
    )
    hub = subprocess.Popen(
        [str(Path(sys.prefix) / "bin" / "jupyterhub"), "-f", str(CONFIG)], env=env, cwd=state
    )

    def stop(signum, frame):
        hub.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    pid_file = state / "course-hub.pid"
    pid_file.write_text(str(os.getpid()))
    try:
        return hub.wait()
    finally:
        restore_traverse(state)
        pid_file.unlink(missing_ok=True)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="course-hub",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("start", "accounts"):
        s = sub.add_parser(name)
        s.add_argument("roster", nargs="?", type=Path, help="nbgrader roster CSV (id,...)")
        s.add_argument("--instructor", default="instructor", help="the instructor's login")
        s.add_argument("--state", type=Path, default=DEFAULT_STATE, help="the hub's own files")
        s.add_argument("--exchange", type=Path, default=DEFAULT_EXCHANGE, help="Exchange.root")
        s.add_argument(
            "--accounts",
            choices=["unix", "shared"],
            default="unix" if os.geteuid() == 0 else "shared",
        )
        s.add_argument("--grant-traverse", action="store_true")
        s.add_argument("--ip", default="127.0.0.1")
        s.add_argument("--port", type=int, default=8000)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "accounts":
        setup(args)
        restore_traverse(args.state.resolve())
        return 0
    return start(args)


if __name__ == "__main__":
    sys.exit(main())
