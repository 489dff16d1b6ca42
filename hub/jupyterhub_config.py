"""JupyterHub configuration for running the course for a class (`make hub`).

`make hub` (``python -m transformer_course.hub start``) writes the settings of one hub
(accounts, folders, ports) to ``<state>/settings.json`` and starts JupyterHub with this
file; to carry the configuration to a hub of your own, copy this file and replace
``SETTINGS`` below by your own values. What it sets up:

* Accounts: real Unix accounts (made from the roster by ``course-hub accounts``), logged
  in with JupyterHub's own ``PAMAuthenticator`` and started with its
  ``LocalProcessSpawner``: each user's server and kernels run under that user's own uid,
  in a home folder only that user can read (mode 0700), which is what keeps students
  out of each other's work and out of the instructor's solutions and gradebook. Without
  root (no accounts can be made or switched to) the hub falls back to one shared account
  (JupyterHub's ``DummyAuthenticator`` and ``SimpleLocalProcessSpawner``, homes under
  the state folder): fine for a trial, with no isolation between users at all.
* The proxy: JupyterHub's default, the Node ``configurable-http-proxy``, installed by
  ``make install`` (npm) into ``.venv/hub-proxy``; nothing is downloaded at run time.
* nbgrader's exchange in one shared folder (``Exchange.root``), mode 0777 as nbgrader's
  documentation asks, and the course id in every user's nbgrader configuration.
* Students get the course's learner configuration (``jupyter-config/learner``: the
  Validate button, no instructor panels) plus nbgrader's Assignments tab
  (``hub/jupyter-config/student``). The instructor gets nbgrader's formgrader, course
  list and Create Assignment (``jupyter-config/instructor``), working on a course
  directory in their home (a copy of this repository) with the gradebook.
"""

import json
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when JupyterHub loads this file)

SETTINGS = json.loads(Path(os.environ["COURSE_HUB_SETTINGS"]).read_text())

# ---------------------------------------------------------------- where and how it listens
c.JupyterHub.ip = SETTINGS["ip"]
c.JupyterHub.port = SETTINGS["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = SETTINGS["hub_port"]
c.ConfigurableHTTPProxy.command = [SETTINGS["proxy"]]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{SETTINGS['proxy_api_port']}"
c.JupyterHub.db_url = f"sqlite:///{SETTINGS['state']}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = f"{SETTINGS['state']}/jupyterhub_cookie_secret"
c.JupyterHub.pid_file = f"{SETTINGS['state']}/jupyterhub.pid"
# A production hub listens on 443 with a certificate (README, "A production hub"):
# c.JupyterHub.ssl_cert = "/etc/letsencrypt/live/hub.example.org/fullchain.pem"
# c.JupyterHub.ssl_key = "/etc/letsencrypt/live/hub.example.org/privkey.pem"

# ------------------------------------------------------------------------------ accounts
INSTRUCTOR = SETTINGS["instructor"]
c.Authenticator.allowed_users = {INSTRUCTOR, *SETTINGS["students"]}
c.Authenticator.admin_users = {INSTRUCTOR}
if SETTINGS["accounts"] == "unix":
    c.JupyterHub.authenticator_class = "pam"
    c.PAMAuthenticator.open_sessions = False  # no login session (utmp, systemd) per server
    c.JupyterHub.spawner_class = "localprocess"
else:  # one shared account: a trial only, no isolation between users
    c.JupyterHub.authenticator_class = "dummy"
    c.DummyAuthenticator.password = SETTINGS["shared_password"]
    c.JupyterHub.spawner_class = "simple"
    c.SimpleLocalProcessSpawner.home_dir_template = f"{SETTINGS['state']}/homes/{{username}}"

# A token for the instructor's scripts (and the tests) to drive the hub's REST API.
c.JupyterHub.services = [{"name": "course-admin", "api_token": SETTINGS["admin_token"]}]
c.JupyterHub.load_roles = [
    {
        "name": "course-admin",
        "scopes": ["admin:users", "admin:servers", "tokens", "list:users", "read:users"],
        "services": ["course-admin"],
    }
]

# ----------------------------------------------------------------------- users' servers
# The course's environment, installed once for everyone (every account can run it).
PYTHON = SETTINGS["python"]
c.Spawner.cmd = [PYTHON, "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 180  # a server imports JupyterLab and nbgrader: slow on 2 busy cores
c.Spawner.http_timeout = 180


def _role(spawner) -> str:
    return "instructor" if spawner.user.name == INSTRUCTOR else "student"


def _config_path(spawner) -> str:
    """Students: the learner configuration plus the Assignments tab; the instructor: the
    instructor configuration. The state folder's layer adds nbgrader's exchange."""
    return os.pathsep.join(SETTINGS["config_path"][_role(spawner)])


c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH": _config_path,
    "JUPYTER_PATH": SETTINGS["jupyter_path"],
    "PATH": os.pathsep.join([str(Path(PYTHON).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
}


def _pre_spawn(spawner) -> None:
    """The instructor's server opens on the course directory, a student's on their home."""
    if _role(spawner) == "instructor":
        spawner.notebook_dir = SETTINGS["course_dir"]


c.Spawner.pre_spawn_hook = _pre_spawn

if __name__ == "__main__":  # pragma: no cover
    sys.exit("This file is read by JupyterHub: `make hub` starts it.")
