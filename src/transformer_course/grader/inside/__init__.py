"""The untrusted side of the grader: what runs inside the sandbox, next to the learner's code.

Nothing here is trusted by the grader, and nothing here imports the grader's trusted side
but :mod:`transformer_course.grader.codec` (a test holds this). Its modules:
:mod:`.zygote` (process control: the zygote, the intermediate process, the learner
process's privileges and limits), :mod:`.importing` (the import guard: the course's
reference modules from source, stand-ins for the checks), :mod:`.server` (the request
server in the learner process) and :mod:`.allowlist` (the one list of modules a course
object's recipe may name, shared with the grader's side).

This ``__init__`` imports nothing: the grader's side imports :mod:`.allowlist` alone.
"""

__all__: list[str] = []
