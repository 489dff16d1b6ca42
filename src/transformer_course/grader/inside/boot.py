"""The first lines the zygote runs inside the sandbox (the grader's ``sandbox.BOOT`` imports this).

Its configuration comes on stdin, not on its command line (``/proc/<pid>/cmdline`` is
readable by every process of the sandbox): the first line is where the staged course
package is (``/course`` in the bubblewrap sandbox), the rest is JSON. The host paths
that must stay hidden (``hide_paths``: the repository) are used here to drop
``sys.path`` entries that point into them and are then forgotten: the configuration
that :func:`.zygote.main` receives (and that every learner process inherits, being a
fork of the zygote) no longer names them.
"""

from __future__ import annotations

import json
import os
import sys

__all__ = ["boot", "visible_path"]


def visible_path(entry: str, hidden: list[str], prefix: str) -> bool:
    """Is this ``sys.path`` entry outside the hidden roots (or inside the Python
    installation, which may live in the repository as a virtual environment)?"""
    real = os.path.realpath(entry or ".")
    if real == prefix or real.startswith(prefix + os.sep):
        return True
    return not any(real == h or real.startswith(h + os.sep) for h in hidden)


def boot() -> None:
    config = json.loads(sys.stdin.read())
    hidden = [os.path.realpath(p) for p in config.pop("hide_paths", [])]
    prefix = os.path.realpath(sys.prefix)
    sys.path[:] = [p for p in sys.path if visible_path(p, hidden, prefix)]
    del hidden
    sys.argv[1:] = [json.dumps(config), config["staged"]]
    from transformer_course.grader.inside.zygote import main

    main()
